/* SPDX-License-Identifier: Apache-2.0 */
/* Traces: an operation stream (work-stream.h) as a CSV file, so that a step
 * captured from a real job can be replayed, and a generated one inspected
 * or edited.
 *
 * Format. RFC 4180 CSV (fields holding a comma, a quote or a line break
 * are quoted, a quote inside doubled; spaces around an unquoted field are
 * dropped). One header row naming the columns, then one row per task, at
 * least one. The writer puts the columns in this order; the reader finds
 * them by name, so any order reads, but every column must be there and no
 * other:
 *
 *   rank,task,kind,category,group,members,peer,op,bytes,sms,duration_us,
 *   flops,memory_share,deps,replicas,replica_stride,label   (on one line)
 *
 *   rank            the GPU that runs the task (an index of the system's
 *                   GPUs, below 2^24).
 *   task            the task's number within its rank: 0, 1, 2, ... in the
 *                   order of the file. A rank's rows come in ascending task
 *                   order with none missing; rows of different ranks may
 *                   interleave. That order is the issue order of the rank.
 *   kind            compute, coll, send or recv (case ignored, as in
 *                   category).
 *   category        what the task serves, for the breakdown of a step:
 *                   compute, tp, pp, dp, ep or cp. Required on every row.
 *   group           coll: the name of the communicator, any text ("tp0");
 *                   every row naming it must give the same members and
 *                   category, and two names may not share both (a stream has
 *                   one communicator per set of ranks and category). Empty
 *                   for other kinds. The writer names groups
 *                   <category><index>: "tp3", "dp0".
 *   members         coll: the group's ranks, separated by spaces, in any
 *                   order ("0 1 2 3"); the row's rank must be one of them.
 *                   A member with no rows of its own is a replica: it is
 *                   taken to reach every call when the others do. Empty for
 *                   other kinds.
 *   peer            send, recv: the other rank (not the row's own). Empty
 *                   for other kinds. The k-th send from a to b pairs with the
 *                   k-th recv on b from a.
 *   op              coll: the collective as nccl-tests or NCCL name it:
 *                   all_reduce, all_gather, reduce_scatter, broadcast,
 *                   reduce, alltoall, sendrecv (case, '_' and '-' ignored:
 *                   "AllReduce", "allreduce"). Empty for other kinds.
 *   bytes           coll, send, recv: a non-negative integer. Collectives
 *                   use nccl-tests' size: all_gather and reduce_scatter give
 *                   the whole (gathered) buffer, not one rank's share. Every
 *                   member's k-th call on a group must give the same op and
 *                   bytes, and a send and its recv the same bytes. Empty for
 *                   compute.
 *   sms             coll: the SMs its kernels hold while it runs, taken
 *                   from the compute that overlaps it (Transformer Engine's
 *                   userbuffers overlap: its num_sm), a positive integer;
 *                   empty: NCCL's kernel, one CTA a channel. Every member's
 *                   k-th call on a group gives the same. Empty for other
 *                   kinds. A trace may leave the column out (traces
 *                   written before it was added): then empty on every row.
 *   duration_us     compute: the kernels' time in microseconds, a
 *                   non-negative decimal ("12.5", "1.25e1"), kept to the
 *                   picosecond (digits beyond the sixth decimal round to the
 *                   nearest picosecond). The writer prints whole microseconds,
 *                   a point and six digits, so times read back exactly.
 *                   Empty for other kinds.
 *   flops           compute: the model FLOPs the task does (for TFLOP/s and
 *                   MFU), a non-negative integer; empty means 0. A compute row
 *                   needs duration_us, or flops > 0 alone: then its time is
 *                   left to the replayer, which derives it from the GPU's
 *                   model (in the stream: duration_ps 0 and flops set; the
 *                   writer writes such a task so).
 *                   Empty for other kinds.
 *   memory_share    compute: the share of its time in memory-bound kernels
 *                   (norms, activations, casts), a decimal from 0 to 1 kept to
 *                   1e-4 ("0.2731"); empty means 0. Beside a collective those
 *                   kernels keep their SMs but share HBM with its traffic
 *                   (work-replay.c). Empty for other kinds. May be left out
 *                   as sms may.
 *   deps            the task numbers of the same rank this task waits for,
 *                   separated by spaces; each below the row's own task
 *                   number. Empty when none.
 *   replicas        the copies of the job the ranks with rows stand for, by
 *   replica_stride  axis (the stream's replicas, work-stream.h): a list of
 *                   counts and a list of as many strides, separated by
 *                   spaces, at most two axes ("24 8" and "8 1": 24 copies
 *                   8 GPUs apart, each of 8 copies 1 GPU apart). GPU
 *                   rank + k_0 stride_0 + k_1 stride_1 runs rank's rows,
 *                   its traffic simulated. The same on every row; empty
 *                   means 1 and 0. A count > 1 needs a stride > 0.
 *   label           free text naming the task ("fwd mb3 chunk0 attn");
 *                   may be empty.
 *
 * The job's GPUs (the stream's n_gpus) are 0 .. N - 1, N being one more than
 * the largest rank, peer, member, and rank + the sum over axes of
 * (count - 1) x stride.
 * Every COLL, SEND and RECV task must belong to a call that can happen: the
 * members of a group make the same number of calls, sends and receives pair
 * up, and the stream can finish (no task waits on a call that a member
 * reaches only after something that waits on it).
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "work/work-stream.h"

/* Ranks, peers and members are below this (the reader's bound on the job's
 * GPUs). */
#define WORK_TRACE_MAX_GPUS (UINT32_C(1) << 24)
/* The most bytes one call or transfer of a trace may move (1 TiB): more
 * than any step's largest gradient bucket, and far from where a transfer's
 * time or the network's byte counts would overflow. */
#define WORK_TRACE_MAX_BYTES (UINT64_C(1) << 40)

/* The columns, in the order the writer puts them (report-trace.h). */
typedef enum WorkTraceColumn {
    WORK_TRACE_RANK,
    WORK_TRACE_TASK,
    WORK_TRACE_KIND,
    WORK_TRACE_CATEGORY,
    WORK_TRACE_GROUP,
    WORK_TRACE_MEMBERS,
    WORK_TRACE_PEER,
    WORK_TRACE_OP,
    WORK_TRACE_BYTES,
    WORK_TRACE_SMS,
    WORK_TRACE_DURATION,
    WORK_TRACE_FLOPS,
    WORK_TRACE_MEMORY_SHARE,
    WORK_TRACE_DEPS,
    WORK_TRACE_REPLICAS,
    WORK_TRACE_STRIDE,
    WORK_TRACE_LABEL,
    WORK_TRACE_N_COLUMNS,
} WorkTraceColumn;

/* Their names in the header row: "rank", "task" ... "label". */
extern const char *const work_trace_columns[WORK_TRACE_N_COLUMNS];

/* Reads the trace at path into a new stream (free with work_stream_free)
 * and checks it with work_stream_check. NULL and error on bad input: an
 * error in a row names the file, its line and the column
 * ("trace.csv:17: bytes: expected a non-negative integer, got \"-3\"");
 * an error of the whole stream is work_stream_check's, after the file
 * name, and names tasks by index, the index of a row among the rows
 * (from 0, in file order). */
WorkStream *work_trace_read(const char *path, GError **error);
/* The same from the text of a trace, length bytes (NUL not needed); path
 * names it in messages. */
WorkStream *work_trace_read_data(const char *data, size_t length, const char *path, GError **error);
