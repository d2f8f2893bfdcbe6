// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * error.c - error messages.  Every errno the tern uAPI documents has a
 * message in the terms of the call that returned it; the failing library
 * call stores it, with the details only it knows, in a per-thread buffer
 * that tern_last_error() returns.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static _Thread_local char last_error[512];

int tern_vseterr(int err, const char *fmt, va_list ap)
{
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	return err;
}

int tern_seterr(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tern_vseterr(err, fmt, ap);
	va_end(ap);
	return err;
}

void tern_clearerr(void)
{
	last_error[0] = 0;
}

const char *tern_last_error(void)
{
	return last_error;
}

struct errmsg {
	int err;
	const char *msg;
};

/* Meanings common to every tern ioctl. */
static const struct errmsg common_msgs[] = {
	{ ENODEV, "the device is gone (unplugged or the driver was unbound)" },
	{ ENOMEM, "out of memory in the kernel" },
	{ EFAULT, "the kernel could not read or write an argument" },
	{ EINTR, "interrupted by a signal" },
	{ ENOTTY, "the device does not know this ioctl (driver too old?)" },
	{ 0, NULL }
};

static const struct errmsg get_info_msgs[] = {
	{ EINVAL, "the driver refused the request flags (library newer than the driver?)" },
	{ 0, NULL }
};

static const struct errmsg bo_create_msgs[] = {
	{ EINVAL, "size 0, or flags or placement the driver does not know (local-preferred "
		  "needs interface 1.6)" },
	{ E2BIG, "larger than the device's largest buffer (max_bo_size), or a "
		 "device-local buffer larger than local memory" },
	{ EOPNOTSUPP, "device-local placement: the device has no local memory, or the "
		      "driver is older than interface 1.6" },
	{ 0, NULL }
};

static const struct errmsg bo_info_msgs[] = {
	{ EINVAL, "flags not zero" },
	{ ENOENT, "no such buffer handle" },
	{ 0, NULL }
};

static const struct errmsg vm_bind_msgs[] = {
	{ EINVAL, "address, offset or size not page aligned, range outside the buffer, "
		  "a flag the driver does not know, or an unmap that would cut a mapping "
		  "without DRM_TERN_VM_BIND_CUT" },
	{ ERANGE, "the address range is outside the device address space" },
	{ EEXIST, "the address range is already mapped" },
	{ ENOENT, "no such buffer handle, or nothing mapped in the range" },
	{ ENOSPC, "the address space already maps the most it may (DRM_TERN_VM_MAX_MAPPED), "
		  "or (interface 1.6) device-local memory is full of mapped buffers" },
	{ EBUSY, "a device-local buffer held in system memory by another device's "
		 "dma-buf attachment" },
	{ 0, NULL }
};

static const struct errmsg ctx_create_msgs[] = {
	{ EINVAL, "priority, engine class, engine, timeout, weight or flags out of range "
		  "(driver older than interface 1.1 for a chosen engine?)" },
	{ EACCES, "a priority above normal or a weight above the default needs "
		  "CAP_SYS_NICE" },
	{ ENODEV, "the device has no engine of that class" },
	{ EMFILE, "too many contexts on this open device (max_contexts)" },
	{ 0, NULL }
};

static const struct errmsg ctx_destroy_msgs[] = {
	{ EINVAL, "padding not zero" },
	{ ENOENT, "no such context" },
	{ 0, NULL }
};

static const struct errmsg ctx_state_msgs[] = {
	{ EINVAL, "flags not zero" },
	{ ENOENT, "no such context" },
	{ 0, NULL }
};

static const struct errmsg submit_msgs[] = {
	{ EINVAL, "a packet operand, a count or a flag was refused" },
	{ E2BIG, "the command buffer is larger than the device allows (buf_size_max)" },
	{ EPERM, "the command buffer holds a privileged packet" },
	{ ENOEXEC, "the command buffer holds an unknown opcode" },
	{ EBADMSG, "a packet header is malformed (reserved bits, wrong length, or past the end)" },
	{ ENOENT, "no such context, buffer or in-fence, or an in-fence timeline point "
		  "that nothing was submitted for yet" },
	{ EIO, "the context was faulted or banned and takes no more work" },
	{ EAGAIN, "the context has max_jobs_per_context unfinished jobs, the device's "
		  "unfinished jobs hold max_queued_bytes of command buffers, or (interface "
		  "1.7) device-local memory stayed held by buffers of unfinished jobs for "
		  "a second: wait for a fence and retry" },
	{ ENOSPC, "the job's device-local buffers together are larger than local memory "
		  "(they can never be resident at once)" },
	{ EBUSY, "a device-local buffer the job uses is held in system memory by another "
		 "device's dma-buf attachment, or is mapped in an address space that failed "
		 "a change" },
	{ 0, NULL }
};

static const struct errmsg open_msgs[] = {
	{ ENOENT, "no tern device" },
	{ EACCES, "permission denied (is the user in the device node's group?)" },
	{ EPERM, "permission denied" },
	{ ENODEV, "not a tern device" },
	{ ENXIO, "the device node has no driver behind it" },
	{ EBUSY, "the device is in use by another process (single-use device)" },
	{ 0, NULL }
};

static const struct errmsg fence_msgs[] = {
	{ ETIME, "the wait timed out; the job is still running or queued" },
	{ EIO, "the job faulted" },
	{ ETIMEDOUT, "the job hung (made no progress for the context's timeout)" },
	{ ECANCELED, "the job was cancelled before it started" },
	{ ENODEV, "the device is gone: the job did not finish" },
	{ 0, NULL }
};

static const struct errmsg vm_bind_ops_msgs[] = {
	{ EINVAL, "an operation, flag or count was refused (op, alignment, a range outside "
		  "its buffer, an unmap that would cut a mapping without TERN_BIND_CUT, too "
		  "many syncs)" },
	{ ERANGE, "an operation's range is outside the device address space" },
	{ E2BIG, "an operation has bytes the driver does not know (library newer than the "
		 "driver?)" },
	{ EEXIST, "a map's range is already mapped, or will be by a bind queued before" },
	{ ENOENT, "no such buffer or in-fence, nothing mapped in an unmap's range, or an "
		  "in-fence timeline point that nothing was submitted for yet" },
	{ ENOSPC, "the address space would map more than it may (bytes, mappings or page "
		  "tables; the pieces of a cut count at once, the mappings removed until "
		  "their jobs ended), or (interface 1.6) device-local memory is full of "
		  "mapped buffers" },
	{ EBUSY, "a device-local buffer held in system memory by another device's "
		 "dma-buf attachment" },
	{ EAGAIN, "the address space already has DRM_TERN_VM_BIND_QUEUE_MAX operations "
		  "queued: wait for a bind's fence and retry" },
	{ EIO, "the address space takes no more changes: the device failed to make one" },
	{ 0, NULL }
};

static const struct errmsg vm_state_msgs[] = {
	{ EINVAL, "flags not zero (library newer than the driver?)" },
	{ 0, NULL }
};

static const struct errmsg bind_fence_msgs[] = {
	{ ETIME, "the wait timed out; the bind is still queued" },
	{ EIO, "the bind did not run: a fence it waited for failed with -EIO (a job "
	       "faulted), or the device could not change the page tables" },
	{ ETIMEDOUT, "the bind did not run: a job it waited for hung" },
	{ ECANCELED, "the bind was cancelled: a bind queued before it failed, or a job it "
		     "waited for was cancelled" },
	{ ENODEV, "the device is gone: the bind did not run" },
	{ 0, NULL }
};

static const struct errmsg *const ioctl_msgs[TERN_IOC_COUNT] = {
	[TERN_IOC_GET_INFO] = get_info_msgs,
	[TERN_IOC_BO_CREATE] = bo_create_msgs,
	[TERN_IOC_BO_INFO] = bo_info_msgs,
	[TERN_IOC_VM_BIND] = vm_bind_msgs,
	[TERN_IOC_CONTEXT_CREATE] = ctx_create_msgs,
	[TERN_IOC_CONTEXT_DESTROY] = ctx_destroy_msgs,
	[TERN_IOC_CONTEXT_GET_STATE] = ctx_state_msgs,
	[TERN_IOC_SUBMIT] = submit_msgs,
	[TERN_IOC_OPEN] = open_msgs,
	[TERN_IOC_FENCE_WAIT] = fence_msgs,
	[TERN_IOC_VM_BIND_OPS] = vm_bind_ops_msgs,
	[TERN_IOC_VM_GET_STATE] = vm_state_msgs,
	[TERN_IOC_BIND_FENCE] = bind_fence_msgs,
};

static const char *lookup(const struct errmsg *m, int err)
{
	for (; m && m->msg; m++)
		if (m->err == err)
			return m->msg;
	return NULL;
}

const char *tern_ioctl_errmsg(unsigned int ioc, int err)
{
	const char *msg;

	if (err < 0)
		err = -err;
	if (ioc >= TERN_IOC_COUNT)
		return NULL;
	msg = lookup(ioctl_msgs[ioc], err);
	if (!msg && ioc != TERN_IOC_OPEN && ioc != TERN_IOC_FENCE_WAIT &&
	    ioc != TERN_IOC_BIND_FENCE)
		msg = lookup(common_msgs, err);
	return msg;
}

/* General meanings, for tern_strerror(). */
static const struct errmsg general_msgs[] = {
	{ EINVAL, "invalid argument (an operand, size, flag or count out of range)" },
	{ E2BIG, "too big for the device's limit" },
	{ EPERM, "not permitted (a privileged packet in the command buffer)" },
	{ EACCES, "permission denied (opening the device, or a context priority or weight "
		  "above the default without CAP_SYS_NICE)" },
	{ ENOEXEC, "unknown opcode in the command buffer" },
	{ EBADMSG, "malformed packet header in the command buffer" },
	{ EFAULT, "an address is not inside any buffer of the device" },
	{ ENOENT, "no such device, context, buffer or fence" },
	{ EIO, "the context was faulted or banned, or the job faulted" },
	{ EAGAIN, "too many unfinished jobs on the context, or device-local memory held "
		  "by unfinished jobs: wait and retry" },
	{ ENOMEM, "out of memory" },
	{ ENOSPC, "no room left (device memory or address space), or a job's device-local "
		  "buffers are larger than local memory" },
	{ EMFILE, "too many contexts on the open device" },
	{ EINTR, "interrupted by a signal" },
	{ ENODEV, "no such device, or not a tern device, or the device is gone" },
	{ ETIME, "wait timed out" },
	{ ETIMEDOUT, "the job hung and was killed" },
	{ ECANCELED, "the job or bind was cancelled before it started" },
	{ EBUSY, "busy: the job has not finished, the device is in use, or an address "
		 "range is still mapped" },
	{ EEXIST, "already exists (address range mapped, or buffer already imported)" },
	{ EOPNOTSUPP, "not supported by this driver" },
	{ ERANGE, "address outside the device address space, or outside the ranges "
		  "reserved with tern_va_reserve()" },
	{ ENOTTY, "the device does not know this request (driver too old?)" },
	{ 0, NULL }
};

const char *tern_strerror(int err)
{
	const char *msg;

	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	msg = lookup(general_msgs, err);
	return msg ? msg : strerror(err);
}
