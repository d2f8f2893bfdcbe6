// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * test_error: every errno the tern uAPI documents for a call has a message
 * of its own for that call; tern_strerror() covers what libtern returns;
 * context states, reasons and fault kinds have names; the last-error
 * message is per thread; opening a device fails clearly without one.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "tap.h"

struct documented {
	unsigned int ioc;
	const char *name;
	int errs[16];
};

/*
 * The errors each ioctl's kernel-doc in tern_accel.h lists, ended by 0.
 * SUBMIT's -ENOSPC and -EBUSY are those of per-job residency (interface
 * 1.7).
 */
static const struct documented documented[] = {
	{ TERN_IOC_GET_INFO, "GET_INFO", { EINVAL, ENODEV, 0 } },
	{ TERN_IOC_BO_CREATE, "BO_CREATE", { EINVAL, E2BIG, EOPNOTSUPP, ENOMEM, ENODEV, 0 } },
	{ TERN_IOC_BO_INFO, "BO_INFO", { EINVAL, ENOENT, ENOMEM, ENODEV, 0 } },
	{ TERN_IOC_VM_BIND, "VM_BIND", { EINVAL, ERANGE, EEXIST, ENOENT, ENOSPC, ENOMEM,
					 EINTR, ENODEV, 0 } },
	{ TERN_IOC_CONTEXT_CREATE, "CONTEXT_CREATE", { EINVAL, EACCES, ENODEV, EMFILE, ENOMEM,
						       0 } },
	{ TERN_IOC_CONTEXT_DESTROY, "CONTEXT_DESTROY", { EINVAL, ENOENT, 0 } },
	{ TERN_IOC_CONTEXT_GET_STATE, "CONTEXT_GET_STATE", { EINVAL, ENOENT, 0 } },
	{ TERN_IOC_SUBMIT, "SUBMIT", { EINVAL, E2BIG, EPERM, ENOEXEC, EBADMSG, EFAULT, ENOENT,
				       EIO, EAGAIN, ENOSPC, EBUSY, ENOMEM, EINTR, ENODEV,
				       0 } },
	{ TERN_IOC_FENCE_WAIT, "a job's fence", { EIO, ETIMEDOUT, ECANCELED, ENODEV, ETIME, 0 } },
	{ TERN_IOC_VM_BIND_OPS, "VM_BIND_OPS", { EINVAL, E2BIG, ERANGE, EEXIST, ENOENT, ENOSPC,
						 EAGAIN, EIO, EFAULT, ENOMEM, EINTR, ENODEV,
						 0 } },
	{ TERN_IOC_VM_GET_STATE, "VM_GET_STATE", { EINVAL, 0 } },
	{ TERN_IOC_BIND_FENCE, "a bind's fence", { EIO, ETIMEDOUT, ECANCELED, ENODEV, ETIME, 0 } },
	{ TERN_IOC_OPEN, "opening a device", { ENOENT, EACCES, ENODEV, 0 } },
};

static void test_ioctl_messages(void)
{
	size_t i, j;

	for (i = 0; i < sizeof(documented) / sizeof(documented[0]); i++) {
		const struct documented *d = &documented[i];
		bool all = true, distinct = true;
		int missing = 0;

		for (j = 0; d->errs[j]; j++) {
			const char *m = tern_ioctl_errmsg(d->ioc, -d->errs[j]);
			size_t k;

			if (!m || !m[0] || !strcmp(m, strerror(d->errs[j]))) {
				all = false;
				missing = d->errs[j];
			}
			for (k = 0; m && k < j; k++)
				if (tern_ioctl_errmsg(d->ioc, d->errs[k]) == m)
					distinct = false;
		}
		ok(all, "%s: each documented errno has a tern message (missing: %s)", d->name,
		   missing ? strerror(missing) : "none");
		ok(distinct, "%s: the messages differ from each other", d->name);
	}
	ok(tern_ioctl_errmsg(TERN_IOC_SUBMIT, -EXDEV) == NULL,
	   "an errno the uAPI does not document has no invented meaning");
	ok(strstr(tern_ioctl_errmsg(TERN_IOC_SUBMIT, EPERM), "privileged") != NULL,
	   "SUBMIT -EPERM is about a privileged packet");
	ok(strstr(tern_ioctl_errmsg(TERN_IOC_SUBMIT, ENOSPC), "local memory") != NULL &&
	   strstr(tern_ioctl_errmsg(TERN_IOC_SUBMIT, EAGAIN), "local memory") != NULL,
	   "SUBMIT -ENOSPC and -EAGAIN speak of device-local memory (residency)");
	ok(strstr(tern_ioctl_errmsg(TERN_IOC_CONTEXT_CREATE, EACCES), "CAP_SYS_NICE") != NULL &&
	   strstr(tern_ioctl_errmsg(TERN_IOC_CONTEXT_CREATE, EACCES), "weight") != NULL,
	   "CONTEXT_CREATE -EACCES is about CAP_SYS_NICE, for priority and weight");
	ok(tern_ioctl_errmsg(TERN_IOC_CONTEXT_CREATE, EPERM) == NULL,
	   "CONTEXT_CREATE gives no meaning to -EPERM, which it does not return");
	ok(strstr(tern_ioctl_errmsg(TERN_IOC_BIND_FENCE, ECANCELED), "bind") != NULL &&
	   strcmp(tern_ioctl_errmsg(TERN_IOC_BIND_FENCE, EIO),
		  tern_ioctl_errmsg(TERN_IOC_FENCE_WAIT, EIO)) != 0,
	   "a bind's fence errors speak of the bind, not of a job");
}

static void test_strerror(void)
{
	static const int errs[] = { EINVAL, E2BIG, EPERM, EACCES, ENOEXEC, EBADMSG, EFAULT,
				    ENOENT, EIO, EAGAIN, ENOMEM, ENOSPC, EMFILE, EINTR, ENODEV,
				    ETIME, ETIMEDOUT, ECANCELED, EBUSY, EEXIST, EOPNOTSUPP,
				    ERANGE, ENOTTY };
	bool all = true;
	size_t i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		const char *m = tern_strerror(-errs[i]);

		if (!m[0] || !strcmp(m, strerror(errs[i])) || m != tern_strerror(errs[i]))
			all = false;
	}
	ok(all, "tern_strerror has a tern meaning for every errno libtern returns, "
	   "with either sign");
	ok(!strcmp(tern_strerror(-EXDEV), strerror(EXDEV)), "other errnos fall back to strerror");
	ok(!strcmp(tern_strerror(0), "success"), "0 is success");
}

static void test_names(void)
{
	uint32_t i, j;
	bool good = true;

	for (i = 0; i <= TERN_CONTEXT_BANNED; i++)
		good &= !strstr(tern_context_state_name(i), "unknown");
	ok(good, "every context state has a name");
	ok(strstr(tern_context_state_name(TERN_CONTEXT_FAULTED), "faulted") &&
	   strstr(tern_context_state_name(TERN_CONTEXT_BANNED), "banned") &&
	   strstr(tern_context_state_name(TERN_CONTEXT_RESET), "reset"),
	   "faulted, banned and reset say so");
	ok(strstr(tern_context_state_name(99), "unknown") != NULL, "an unknown state says so");
	good = true;
	for (i = 0; i <= TERN_REASON_DEVICE_LOST; i++)
		for (j = 0; j < i; j++)
			good &= strcmp(tern_context_reason_name(i), tern_context_reason_name(j)) != 0;
	ok(good && strstr(tern_context_reason_name(TERN_REASON_DEVICE_LOST), "lost"),
	   "every reason has its own name, device lost included");
	good = true;
	for (i = 0; i <= 11; i++) {
		good &= !strstr(tern_fault_kind_name(i), "unknown");
		for (j = 0; j < i; j++)
			good &= strcmp(tern_fault_kind_name(i), tern_fault_kind_name(j)) != 0;
	}
	ok(good, "the 12 fault kinds of the hardware spec have distinct names");
	ok(strstr(tern_fault_kind_name(12), "unknown") != NULL, "fault kind 12 is unknown");
}

static void *other_thread(void *arg)
{
	(void)arg;
	return (void *)(tern_last_error()[0] == 0 ? "clean" : "dirty");
}

static void test_per_thread(void)
{
	struct tern_cmdbuf *cb;
	pthread_t t;
	void *res = NULL;

	tern_cmdbuf_create(0, &cb);
	tern_cmd_spin(cb, 0);
	ok(strstr(tern_last_error(), "SPIN") != NULL, "a failed call leaves its message");
	pthread_create(&t, NULL, other_thread, NULL);
	pthread_join(t, &res);
	ok(res && !strcmp(res, "clean"), "another thread does not see it");
	tern_cmdbuf_free(cb);
}

static void test_open_errors(void)
{
	struct tern_device *dev = (void *)1;
	struct stat st;
	int ret;

	ret = tern_device_open_path("/dev/accel/no-such-node", &dev);
	ok(ret == -ENOENT && !dev && strstr(tern_last_error(), "/dev/accel/no-such-node"),
	   "a missing node: -ENOENT naming it (\"%s\")", tern_last_error());
	ret = tern_device_open_path("/dev/null", &dev);
	ok(ret == -ENODEV && !dev && strstr(tern_last_error(), "not a DRM device"),
	   "a node that is not DRM: -ENODEV (\"%s\")", tern_last_error());
	if (stat("/sys/module/tern", &st)) {
		ok(tern_device_count() == 0 && strstr(tern_last_error(), "not loaded"),
		   "without the module: no device, and the message says the module is not "
		   "loaded (\"%s\")", tern_last_error());
		ret = tern_device_open(0, &dev);
		ok(ret == -ENOENT && !dev && strstr(tern_last_error(), "modprobe tern"),
		   "opening device 0 says how to load the module");
	} else {
		ok(true, "# SKIP the tern module is loaded on this host");
		ok(true, "# SKIP the tern module is loaded on this host");
	}
}

int main(void)
{
	test_ioctl_messages();
	test_strerror();
	test_names();
	test_per_thread();
	test_open_errors();
	return tap_end();
}
