// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#define CREATE_TRACE_POINTS
#include "tern_trace.h"
