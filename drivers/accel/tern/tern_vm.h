/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_VM_H__
#define __TERN_VM_H__

#include <linux/types.h>

struct dma_resv;
struct drm_device;
struct drm_exec;
struct drm_file;
struct drm_printer;
struct tern_bo;
struct tern_device;
struct tern_vm;

int tern_vm_create(struct tern_device *tdev, struct tern_vm **out);
struct tern_vm *tern_vm_get(struct tern_vm *vm);
void tern_vm_put(struct tern_vm *vm);

u64 tern_vm_root(struct tern_vm *vm);
struct dma_resv *tern_vm_resv(struct tern_vm *vm);
int tern_vm_lock_resv(struct tern_vm *vm, struct drm_exec *exec,
		      unsigned int num_fences);
unsigned int tern_vm_id(struct tern_vm *vm);
u64 tern_vm_update_ns(struct tern_vm *vm);
void tern_vm_print(struct tern_vm *vm, struct drm_printer *p);
void tern_vm_debugfs_show(struct tern_device *tdev, struct drm_printer *p);
void tern_vm_unplug(struct tern_device *tdev);

void tern_vm_close(struct tern_vm *vm);

int tern_vm_bind_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int tern_vm_bind_ops_ioctl(struct drm_device *dev, void *data,
			   struct drm_file *file);
int tern_vm_get_state_ioctl(struct drm_device *dev, void *data,
			    struct drm_file *file);
int tern_vm_map_read_only(struct tern_vm *vm, struct tern_bo *bo, u64 va,
			  u64 range);

struct tern_move_vm;

/**
 * struct tern_vm_move - the address spaces a move of a BO holds still
 * @vms: those that map the BO, each with the updates of its mappings
 * @nr_vms: entries of @vms
 * @idx: of drm_dev_enter()
 * @cookie: of dma_fence_begin_signalling()
 */
struct tern_vm_move {
	struct tern_move_vm *vms;
	u32 nr_vms;
	int idx;
	bool cookie;
};

struct tern_bo_backing;

bool tern_vm_bo_stuck(struct tern_bo *bo);
int tern_vm_bo_move_begin(struct tern_bo *bo, struct tern_vm_move *mv);
void tern_vm_bo_move_end(struct tern_bo *bo, const struct tern_bo_backing *to,
			 struct tern_vm_move *mv);

#endif /* __TERN_VM_H__ */
