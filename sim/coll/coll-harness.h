/* SPDX-License-Identifier: Apache-2.0 */
/* How a benchmark times collective calls, and what it reports for a call
 * whose kernel runs a given time on the GPU.
 *
 * nccl-tests (the default) issues its timed calls back to back and
 * averages: the host spends host_issue per call for every GPU its thread
 * drives (one with one process per GPU, mpirun; all of a node's with -g N),
 * while each GPU runs the calls' kernels one after another, kernel_gap
 * apart. The slower of the two paces the loop; the other shows once, as
 * do the first launch's latency, over the timed calls:
 *
 *   T = max(H, D) + (min(H, D) + launch_latency) / iterations
 *   H = gpus per thread x issue,  D = kernel + gap
 *
 * iterations is nccl-tests' -n (the runtime model's unless the harness
 * names it); nccl-tests' warm-up calls (-w) and its one synchronising
 * call before the loop are not timed, so they add no term.
 *
 * With a CUDA graph (nccl-tests -G) the issue and gap are the graph's. A
 * blocking harness (a framework loop that waits for every call, such as
 * torch.distributed with a synchronize) pays them all every call:
 *
 *   T = H + launch_latency + kernel
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-runtime.h"

typedef enum CollHarnessKind {
    COLL_HARNESS_NCCL_TESTS, /* back-to-back calls, averaged */
    COLL_HARNESS_BLOCKING,   /* every call waited for */
    COLL_N_HARNESSES,
} CollHarnessKind;

typedef enum CollLaunchMode {
    COLL_LAUNCH_MPI,     /* one process (thread) per GPU */
    COLL_LAUNCH_THREADS, /* one thread drives every GPU of its node (nccl-tests -g N) */
    COLL_N_LAUNCH_MODES,
} CollLaunchMode;

typedef struct CollHarness {
    CollHarnessKind kind;
    CollLaunchMode mode;
    bool cuda_graph;
    uint32_t n_iterations;    /* timed calls (nccl-tests -n); 0: the runtime model's */
    uint32_t gpus_per_thread; /* threads mode: GPUs one thread drives (nccl-tests -g);
                                 0: every GPU of its host */
} CollHarness;

/* nccl-tests' defaults: back-to-back calls, one process per GPU, no
 * graph, the runtime model's iterations. */
#define COLL_HARNESS_DEFAULT                                                                       \
    ((CollHarness){.kind = COLL_HARNESS_NCCL_TESTS, .mode = COLL_LAUNCH_MPI, .cuda_graph = false})

/* Names as the measurement schema spells them: "nccl-tests", "blocking";
 * "mpi", "threads". Parsing is case-insensitive; false if unknown. */
const char *coll_harness_kind_name(CollHarnessKind kind);
const char *coll_launch_mode_name(CollLaunchMode mode);
bool coll_harness_kind_parse(const char *text, CollHarnessKind *kind);
bool coll_launch_mode_parse(const char *text, CollLaunchMode *mode);

/* The terms of one reported call. */
typedef struct CollHarnessTime {
    uint64_t issue_ps;  /* H: the host's issue of one call for all its GPUs */
    uint64_t device_ps; /* D: one call's kernel and the gap to the next */
    uint64_t time_ps;   /* what the harness reports per call */
} CollHarnessTime;

/* The reported time of a call whose kernel runs kernel_ps (its setup
 * included) on each GPU, when a thread drives ppn GPUs in threads mode
 * (a host's, coll_comm_ranks_per_host; h->gpus_per_thread instead when
 * it is set);
 * rt NULL (virtual ranks that are not NCCL's): the kernel alone. */
void coll_harness_time(const HwRuntime *rt, const CollHarness *h, uint32_t ppn, uint64_t kernel_ps,
                       CollHarnessTime *out);
