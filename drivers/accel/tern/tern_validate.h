/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_VALIDATE_H__
#define __TERN_VALIDATE_H__

#include <linux/types.h>

/**
 * struct tern_validate_error - where and why a command buffer was refused
 * @offset: dword index of the header of the refused packet (or of the
 *	position where a packet was expected but the buffer ended)
 * @opcode: opcode of the refused packet (its header's bits 7:0), 0 if the
 *	buffer ended before a header
 * @reason: short human-readable reason, for debug messages only
 */
struct tern_validate_error {
	u32 offset;
	u32 opcode;
	const char *reason;
};

int tern_validate_cmdbuf(const u32 *dw, u32 ndw, struct tern_validate_error *err);
int tern_validate_cmdbuf_class(const u32 *dw, u32 ndw, u32 engine_class,
			       struct tern_validate_error *err);
bool tern_validate_batchable(const u32 *dw, u32 ndw);

#endif /* __TERN_VALIDATE_H__ */
