/* SPDX-License-Identifier: Apache-2.0 */
/* Assertions for the hot loop: compiled in by ./configure --enable-debug
 * (SIM_DEBUG), out otherwise, so release runs pay nothing for them. */
#pragma once

#include <glib.h>

#ifdef SIM_DEBUG
#define SIM_HOT_ASSERT(expr) g_assert(expr)
#else
#define SIM_HOT_ASSERT(expr) ((void)0)
#endif
