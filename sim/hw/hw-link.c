/* SPDX-License-Identifier: Apache-2.0 */
/* Link models from models/link/NAME.ini: one kind of point-to-point wire
 * (an NVLink generation, NVLink-C2C, PCIe x16, a CPU socket link, an
 * InfiniBand or Ethernet port), per link and per direction.
 *
 * The level of detail is the packet: a fixed header per packet, a largest
 * payload, credits of a fixed size and a receive buffer, and a replay cost
 * for packets that fail their CRC. Lanes and lane rates are kept for
 * reference and for the check that the data rate fits under them; the
 * simulator moves bytes at bytes_per_s. Units as in hw-link.h; values and
 * their sources live in the files, not here.
 */
#include "hw/hw-link.h"

#include <string.h>

#include "core/core-time.h"
#include "hw/hw-keys.h"
#include "hw/hw-models.h"

/* The loader fills a HwLink plus the kind's word, then turns the word into
 * HwLinkKind; offsets are into this wrapper. */
typedef struct LinkFile {
    HwLink link;
    char *kind;
} LinkFile;

#define FIELD(f) offsetof(LinkFile, link.f)

static const HwKey link_keys[] = {
    {"name", HW_KEY_STRING, FIELD(name), true, "the link's name, such as NVLink 4"},
    {"kind", HW_KEY_STRING, offsetof(LinkFile, kind), true,
     "one of nvlink, c2c, pcie, cpu, network, memory"},
    {"generation", HW_KEY_COUNT, FIELD(generation), false,
     "the NVLink (1 to 5) or PCIe (3 to 6) generation; omit for other kinds"},
    {"lanes", HW_KEY_COUNT, FIELD(n_lanes), true, "lanes per direction, such as 2"},
    {"lane_rate", HW_KEY_BYTES_PER_S, FIELD(lane_bytes_per_s), true,
     "the signalling rate of one lane, such as 100Gbit/s"},
    {"bandwidth", HW_KEY_BYTES_PER_S, FIELD(bytes_per_s), true,
     "the data rate per direction after line coding, such as 25GB/s"},
    {"header", HW_KEY_SIZE_BYTES, FIELD(header_bytes), true,
     "link-layer bytes carried by every packet, such as 16B"},
    {"sm_header", HW_KEY_SIZE_BYTES, FIELD(sm_header_bytes), false,
     "overhead bytes of an SM-issued packet where it differs from header, such as 27B"},
    {"sm_payload", HW_KEY_SIZE_BYTES, FIELD(sm_payload_bytes), true,
     "largest payload of an SM-issued packet, such as 128B"},
    {"ce_payload", HW_KEY_SIZE_BYTES, FIELD(ce_payload_bytes), true,
     "largest payload of a copy-engine (DMA) packet, such as 256B"},
    {"latency", HW_KEY_TIME_PS, FIELD(latency_ps), true, "one hop, such as 150ns"},
    {"rx_buffer", HW_KEY_SIZE_BYTES, FIELD(rx_buffer_bytes), true,
     "the receive buffer the sender holds credits for, such as 16KiB"},
    {"credit", HW_KEY_SIZE_BYTES, FIELD(credit_bytes), true,
     "the bytes one credit covers, such as 16B"},
    {"replay_buffer", HW_KEY_SIZE_BYTES, FIELD(replay_buffer_bytes), true,
     "the sender's replay buffer, such as 16KiB (0B: no link-level replay)"},
    {"replay_latency", HW_KEY_TIME_PS, FIELD(replay_latency_ps), true,
     "what a failed CRC costs before the resend, such as 400ns"},
    {"packet_error_rate", HW_KEY_PROBABILITY, FIELD(packet_error_rate), false,
     "the probability that a packet fails its CRC (0 if omitted)"},
};

const HwKeyTable hw_link_key_table = {"models/link/ID.ini", "link", link_keys, G_N_ELEMENTS(link_keys)};

/* Indexed by HwLinkKind; the generations each kind accepts (0 to 0: the
 * kind has none). */
static const struct {
    const char *name;
    uint64_t min_generation, max_generation;
} kinds[] = {
    [HW_LINK_NVLINK] = {"nvlink", 1, 6},   [HW_LINK_C2C] = {"c2c", 0, 0},
    [HW_LINK_PCIE] = {"pcie", 3, 6},       [HW_LINK_CPU] = {"cpu", 0, 0},
    [HW_LINK_NETWORK] = {"network", 0, 0}, [HW_LINK_MEMORY] = {"memory", 0, 0},
};

const char *
hw_link_kind_name(HwLinkKind kind)
{
    g_return_val_if_fail((size_t)kind < G_N_ELEMENTS(kinds), "?");
    return kinds[kind].name;
}

static void
hw_link_clear(HwLink *link)
{
    g_free(link->name);
    link->name = NULL;
}

void
hw_link_free(HwLink *link)
{
    if (link == NULL)
        return;
    hw_link_clear(link);
    g_free(link);
}

static bool
parse_kind(const char *path, const char *text, HwLinkKind *out, GError **error)
{
    const char *names[G_N_ELEMENTS(kinds)];
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
        names[i] = kinds[i].name;
    size_t index;
    if (!hw_keys_choice(path, "link", "kind", text, names, G_N_ELEMENTS(names), &index, error))
        return false;
    *out = (HwLinkKind)index;
    return true;
}

/* The data rate cannot exceed what the lanes signal; 128-bit product. */
static bool
check_rates(const HwLink *link, const char *path, GError **error)
{
    unsigned __int128 raw = (unsigned __int128)link->n_lanes * link->lane_bytes_per_s;
    if (link->bytes_per_s <= raw)
        return true;
    return hw_keys_fail(error, path, "link", "bandwidth",
                        "%" G_GUINT64_FORMAT
                        " B/s is more than lanes x lane_rate = %" G_GUINT64_FORMAT
                        " B/s: expected the data rate after line coding, at most the raw rate",
                        link->bytes_per_s, (uint64_t)MIN(raw, (unsigned __int128)UINT64_MAX));
}

/* Buffers must hold at least one packet of the largest payload, or the
 * sender could never send it: a deadlock the run would only find late. */
static bool
check_buffers(const HwLink *link, const char *path, GError **error)
{
    uint64_t payload = MAX(link->sm_payload_bytes, link->ce_payload_bytes);
    uint64_t packet = link->header_bytes + payload;
    if (link->rx_buffer_bytes < packet || link->rx_buffer_bytes < link->credit_bytes)
        return hw_keys_fail(error, path, "link", "rx_buffer",
                            "%" G_GUINT64_FORMAT " B cannot hold one packet (header + payload = "
                            "%" G_GUINT64_FORMAT " B) or one credit (%" G_GUINT64_FORMAT
                            " B): expected a larger buffer",
                            link->rx_buffer_bytes, packet, link->credit_bytes);
    if (link->replay_buffer_bytes != 0 && link->replay_buffer_bytes < packet)
        return hw_keys_fail(error, path, "link", "replay_buffer",
                            "%" G_GUINT64_FORMAT " B cannot hold one packet (%" G_GUINT64_FORMAT
                            " B): expected 0B (no link-level replay) or at least one packet",
                            link->replay_buffer_bytes, packet);
    return true;
}

double
hw_link_delivered_bytes_per_s(const HwLink *link, double rate_factor, double error_rate)
{
    g_return_val_if_fail(rate_factor > 0 && rate_factor <= 1, 0.0);
    g_return_val_if_fail(error_rate >= 0 && error_rate < 1, 0.0);
    double rate = (double)link->bytes_per_s * rate_factor;
    if (error_rate == 0)
        return rate;
    double packet =
        (double)(MIN(link->sm_payload_bytes, link->ce_payload_bytes) + link->header_bytes);
    double replay = (double)link->replay_latency_ps * rate / (double)SIM_PS_PER_S;
    return rate * (1 - error_rate) / (1 + error_rate * replay / packet);
}

/* CRC failures may not leave the link less than a link model may have:
 * near 1 its transfers would outlast the simulated clock. */
static bool
check_errors(const HwLink *link, const char *path, GError **error)
{
    double left = hw_link_delivered_bytes_per_s(link, 1.0, link->packet_error_rate);
    if (left >= (double)HW_KEYS_MIN_BYTES_PER_S)
        return true;
    g_autofree char *p = hw_keys_number_text(link->packet_error_rate);
    return hw_keys_fail(error, path, "link", "packet_error_rate",
                        "%s leaves %.3g GB/s of the link's %.3g GB/s (a failed packet is sent "
                        "again after replay_latency): expected a probability that leaves at "
                        "least %g GB/s",
                        p, left / 1e9, (double)link->bytes_per_s / 1e9,
                        (double)HW_KEYS_MIN_BYTES_PER_S / 1e9);
}

static bool
check(const HwLink *link, const char *path, GError **error)
{
    const char *g = "link";
    return hw_keys_check_range(path, g, "generation", link->generation,
                               kinds[link->kind].min_generation, kinds[link->kind].max_generation,
                               error) &&
           hw_keys_check_range(path, g, "lanes", link->n_lanes, 1, 1024, error) &&
           hw_keys_check_range(path, g, "sm_payload", link->sm_payload_bytes, 1, UINT32_MAX,
                               error) &&
           hw_keys_check_range(path, g, "ce_payload", link->ce_payload_bytes, 1, UINT32_MAX,
                               error) &&
           hw_keys_check_range(path, g, "header", link->header_bytes, 0, UINT32_MAX, error) &&
           hw_keys_check_range(path, g, "credit", link->credit_bytes, 1, UINT32_MAX, error) &&
           check_rates(link, path, error) && check_buffers(link, path, error) &&
           check_errors(link, path, error);
}

static HwLink *
link_load(const char *path, const char *data, gsize length, GError **error)
{
    g_autoptr(GKeyFile) kf = hw_keys_open(path, "a model file", "link", data, length, error);
    if (kf == NULL)
        return NULL;
    LinkFile file = {0};
    bool ok = hw_keys_load(kf, path, "link", link_keys, G_N_ELEMENTS(link_keys), &file, error) &&
              parse_kind(path, file.kind, &file.link.kind, error) && check(&file.link, path, error);
    g_free(file.kind);
    if (!ok) {
        hw_link_clear(&file.link);
        return NULL;
    }
    HwLink *link = g_new(HwLink, 1);
    *link = file.link;
    return link;
}

HwLink *
hw_link_load(const char *path, GError **error)
{
    return link_load(path, NULL, 0, error);
}

HwLink *
hw_link_load_data(const char *data, gsize length, const char *path, GError **error)
{
    g_return_val_if_fail(data != NULL, NULL);
    return link_load(path, data, length, error);
}

HwLink *
hw_link_load_by_name(const char *name, const char *models_dir, GError **error)
{
    g_return_val_if_fail(name != NULL && models_dir != NULL, NULL);
    if (!hw_models_id_is_plain(name)) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                    "'%s' is not a link model name: expected a file stem such as nvlink4", name);
        return NULL;
    }
    GError *local = NULL;
    if (!hw_models_check(models_dir, &local)) {
        g_propagate_prefixed_error(error, local, "no link model '%s': ", name);
        return NULL;
    }
    g_auto(GStrv) folders = hw_models_folders(models_dir);
    g_autofree char *file = g_strconcat(name, ".ini", NULL);
    for (char **f = folders; *f != NULL; f++) {
        g_autofree char *path = g_build_filename(*f, "link", file, NULL);
        if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
            return hw_link_load(path, error);
    }
    g_autofree char *missing = hw_models_missing(models_dir, "link", name);
    g_autofree char *known = hw_models_ids_joined(models_dir, "link");
    g_autofree char *folder = g_build_filename(folders[0], "link", NULL);
    g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_MISSING, "no link model '%s': %s; expected %s%s",
                name, missing, known ? "one of: " : "a model file in ", known ? known : folder);
    return NULL;
}

double
hw_link_payload_bytes_per_s(const HwLink *link, uint64_t payload_bytes)
{
    g_return_val_if_fail(link != NULL && payload_bytes > 0, 0.0);
    /* Exact integer quotient plus the fraction: one rounding, at the end. */
    unsigned __int128 num = (unsigned __int128)link->bytes_per_s * payload_bytes;
    unsigned __int128 den = (unsigned __int128)payload_bytes + link->header_bytes;
    return (double)(num / den) + (double)(num % den) / (double)den;
}
