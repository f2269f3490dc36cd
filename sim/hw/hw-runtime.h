/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime model: what the host and the GPU spend on a collective call
 * around its data movement, loaded from models/runtime/ID.ini (group
 * [runtime]). Every system names one ([host] runtime, default nccl).
 *
 *   host_issue      host time per call and per GPU the calling thread
 *                   drives: NCCL's enqueue and the kernel launch
 *   graph_issue     the same per call of a captured CUDA graph
 *   launch_latency  from the launch call to the kernel running
 *   kernel_gap      between back-to-back kernels of one stream
 *   graph_kernel_gap  the same inside a CUDA graph
 *   kernel_setup    the NCCL kernel's start on the GPU up to its first step
 *   proxy_post      the network proxy thread's work for one step that
 *                   crosses nodes (seeing the GPU's data ready, posting it,
 *                   handing the completion back), beyond the NICs' latency
 *   iterations      the calls a harness times (nccl-tests' -n)
 *
 * Description only; coll-harness.h composes them.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-keys.h"


typedef struct HwRuntime {
    char *name;
    uint64_t host_issue_ps;
    uint64_t graph_issue_ps;
    uint64_t launch_latency_ps;
    uint64_t kernel_gap_ps;
    uint64_t graph_kernel_gap_ps;
    uint64_t kernel_setup_ps;
    uint64_t proxy_post_ps;
    uint64_t n_iterations;
} HwRuntime;

/* Loads and checks a runtime model; NULL and error ("PATH: [runtime] key:
 * ...") on failure. */
HwRuntime *hw_runtime_load(const char *path, GError **error);
/* The same from the text of a runtime file (length bytes; (gsize)-1: up to
 * its NUL); path names it in messages. */
HwRuntime *hw_runtime_load_data(const char *data, gsize length, const char *path, GError **error);

void hw_runtime_free(HwRuntime *runtime);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HwRuntime, hw_runtime_free)

/* A runtime model's key table (for listings and tests). */
extern const HwKeyTable hw_runtime_key_table;
