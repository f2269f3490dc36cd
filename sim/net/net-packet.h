/* SPDX-License-Identifier: Apache-2.0 */
/* The packet engine: packets, per-hop serialization and latency, credits,
 * input-queued crossbars. Its constructor is called by net_new; the link
 * inspection below is for tests and reports.
 */
#pragma once

#include "net/net.h"

NetModel *net_packet_new(SimEngine *engine, const TopoGraph *graph, const TopoRouter *router,
                         const NetOptions *options);

/* What one link direction has carried, and its sender's credits. Credits
 * count the receiver's buffer in units of the link's credit_bytes (bytes
 * when that is 0). */
typedef struct NetPacketLinkStats {
    uint64_t n_packets;        /* packets sent (a replayed packet counts once) */
    uint64_t wire_bytes;       /* their payload and headers */
    uint64_t n_replays;        /* CRC failures on this link */
    int64_t credits_total;     /* the buffer, empty; 0 when the link has no flow control */
    int64_t credits;           /* held now, returns due by now included */
    int64_t credits_returning; /* on their way back, due later */
    int64_t credits_min;       /* fewest ever held after taking: never below 0 */
} NetPacketLinkStats;

/* Fills stats for link (a TopoLink id of the graph); net must be a packet
 * engine. */
void net_packet_link_stats(const NetModel *net, uint32_t link, NetPacketLinkStats *stats);

/* For tests: makes every link decide one packet at a time at the present,
 * as if no link had a lookahead (see net-packet.c). Completion times must
 * not change; only the number of events does. Call before the first send. */
void net_packet_disable_lookahead(NetModel *net);
