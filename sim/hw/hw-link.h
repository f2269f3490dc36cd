/* SPDX-License-Identifier: Apache-2.0 */
/* A link model: one kind of point-to-point wire (an NVLink generation,
 * NVLink-C2C, a PCIe generation at x16, an InfiniBand or Ethernet port
 * rate), loaded from models/link/NAME.ini (group [link]). Figures are per
 * link and per direction. Description only: no behaviour.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "hw/hw-keys.h"


typedef enum HwLinkKind {
    HW_LINK_NVLINK,  /* GPU-GPU or GPU-NVSwitch */
    HW_LINK_C2C,     /* NVLink-C2C, Grace to GPU */
    HW_LINK_PCIE,    /* host links: GPU, NIC, PCIe switch, CPU */
    HW_LINK_CPU,     /* between the CPU sockets of one host (QPI, UPI) */
    HW_LINK_NETWORK, /* NIC port to fabric switch, switch to switch */
    HW_LINK_MEMORY,  /* a CTA into its GPU's L2 and HBM (the loopback model) */
} HwLinkKind;

typedef struct HwLink {
    char *name; /* "NVLink 4" */
    HwLinkKind kind;
    uint64_t generation;       /* NVLink or PCIe generation; 0 where none */
    uint64_t n_lanes;          /* per direction */
    uint64_t lane_bytes_per_s; /* signalling rate of one lane, as written ("100Gbit/s") */
    uint64_t bytes_per_s;      /* data rate per direction after line coding */
    uint64_t header_bytes;     /* link-layer overhead carried by every packet */
    uint64_t sm_header_bytes;  /* overhead of an SM-issued packet; 0: header_bytes */
    uint64_t sm_payload_bytes; /* largest payload of one SM-issued packet */
    uint64_t ce_payload_bytes; /* largest payload of one copy-engine (DMA) packet */
    uint64_t latency_ps;       /* one hop: first bit in at the sender to first bit out */
    uint64_t rx_buffer_bytes;  /* receive buffer the sender holds credits for */
    uint64_t credit_bytes;     /* one credit covers this many bytes (a flit) */
    uint64_t replay_buffer_bytes;
    uint64_t replay_latency_ps; /* a CRC error costs this (NAK round trip) before resending */
    double packet_error_rate;   /* probability a packet fails its CRC; 0 by default */
} HwLink;

/* Loads and checks a link model; NULL and error ("PATH: [link] key: what
 * was wrong; expected ...") on failure. Free with hw_link_free. */
HwLink *hw_link_load(const char *path, GError **error);
/* The same from the text of a model file (length bytes; (gsize)-1: up to
 * its NUL); path names it in messages. */
HwLink *hw_link_load_data(const char *data, gsize length, const char *path, GError **error);

/* Loads FOLDER/link/NAME.ini from the first folder of the search path
 * models_dir that has it. NAME is a bare file stem ("nvlink4"); a
 * name with a slash or a leading dot, or one with no file, is an error
 * that names the path looked for. The caller adds its own context (the
 * file, group and key that named the link). */
HwLink *hw_link_load_by_name(const char *name, const char *models_dir, GError **error);

void hw_link_free(HwLink *link);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HwLink, hw_link_free)

/* Payload bytes per second a long stream of packets of payload_bytes each
 * carries on one direction of the link: bytes_per_s * payload_bytes /
 * (payload_bytes + header_bytes). Header overhead counted; credits and
 * errors not. payload_bytes must be positive. */
double hw_link_payload_bytes_per_s(const HwLink *link, uint64_t payload_bytes);

/* What one direction of the link delivers at rate_factor of its bandwidth
 * (in (0, 1]) when each packet fails its CRC with probability error_rate
 * (in [0, 1)), in bytes per second before header overhead: bytes_per_s x
 * rate_factor x (1 - p) / (1 + p x replay / packet), where a failure costs
 * a resend and replay_latency (replay: the bytes that time could carry)
 * and packet is the smaller payload plus header. Equal to bytes_per_s x
 * rate_factor without errors. */
double hw_link_delivered_bytes_per_s(const HwLink *link, double rate_factor, double error_rate);

/* The word a model file uses for kind: "nvlink", "c2c", "pcie", "cpu",
 * "network", "memory". */
const char *hw_link_kind_name(HwLinkKind kind);

/* A link model's key table (for listings and tests). */
extern const HwKeyTable hw_link_key_table;
