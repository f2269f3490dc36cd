/* SPDX-License-Identifier: Apache-2.0 */
/* Fabric faults (see topo-fault.h): the [faults] key table, its lists of
 * planes and bundles parsed once into TopoFault records, the checks
 * against a system, and the question the graph builder asks of each
 * bundle it lays: how many links are left, at what share of the rate, with
 * what CRC error rate. Description only; topo-build applies it.
 */
#include "topo/topo-fault.h"

#include <stddef.h>
#include <string.h>

/* The group as written. Rates start below 0: "not given". */
typedef struct FaultsFile {
    char *planes_down, *links_down, *slow_links, *crc_links, *nics_down, *slow_nics;
    double slow_rate, crc_error_rate;
} FaultsFile;

#define F(field) offsetof(FaultsFile, field)

const HwKey topo_fault_keys[TOPO_N_FAULT_KEYS] = {
    {"planes_down", HW_KEY_STRING, F(planes_down), false,
     "NVSwitch planes down on every board, such as 1 or 1,3"},
    {"links_down", HW_KEY_STRING, F(links_down), false,
     "bundles down, such as 3:1 (GPU 3's links to plane 1), 0-1 (the direct links of GPUs 0 "
     "and 1) or 3:1x2 (2 of GPU 3's links to plane 1)"},
    {"slow_links", HW_KEY_STRING, F(slow_links), false,
     "bundles that keep slow_rate of their rate, such as 3:1 or 0-1"},
    {"slow_rate", HW_KEY_FRACTION, F(slow_rate), false,
     "the share of the rate slow_links keep, such as 0.5"},
    {"crc_links", HW_KEY_STRING, F(crc_links), false,
     "bundles whose packets fail their CRC at crc_error_rate, such as 3:1 or 0-1"},
    {"crc_error_rate", HW_KEY_PROBABILITY, F(crc_error_rate), false,
     "the probability that a packet of crc_links fails its CRC, such as 1e-4"},
    {"nics_down", HW_KEY_STRING, F(nics_down), false,
     "scale-out NICs down on every node, such as 3 or 1,5 (NIC k of a node)"},
    {"slow_nics", HW_KEY_STRING, F(slow_nics), false,
     "NICs whose fabric links keep slow_rate of their rate, such as 3 or 1,5"},
};

const HwKeyTable topo_fault_key_table = {"scenario (or --fault KEY=VALUE)", "faults",
                                         topo_fault_keys, TOPO_N_FAULT_KEYS};

static const char *const kind_keys[] = {"planes_down", "links_down", "slow_links",
                                        "crc_links",   "nics_down",  "slow_nics"};

TopoFaults *
topo_faults_new(void)
{
    TopoFaults *faults = g_new0(TopoFaults, 1);
    faults->faults = g_array_new(FALSE, FALSE, sizeof(TopoFault));
    faults->slow_rate = 1.0;
    return faults;
}

void
topo_faults_free(TopoFaults *faults)
{
    if (faults == NULL)
        return;
    g_array_unref(faults->faults);
    g_free(faults);
}

static const TopoFault *
fault_at(const TopoFaults *faults, guint i)
{
    return &g_array_index(faults->faults, TopoFault, i);
}

/* ---- Parsing. ---- */

/* "G:P", "A-B", each with "xN" where kind allows it. */
static bool
parse_bundle(const char *item, TopoFaultKind kind, const char *path, TopoFault *out, GError **error)
{
    const char *key = kind_keys[kind], *p = item;
    uint64_t a, b, n = 0;
    char sep = '\0';
    bool ok = hw_keys_take_number(&p, &a) && (sep = *p++, sep == ':' || sep == '-') &&
              hw_keys_take_number(&p, &b);
    bool counted = ok && *p == 'x';
    if (counted) {
        p++;
        ok = hw_keys_take_number(&p, &n) && n > 0;
    }
    if (!ok || *p != '\0')
        return hw_keys_fail(error, path, "faults", key,
                            "'%s' is malformed; expected G:P (GPU G's links to NVSwitch plane P) "
                            "or A-B (the direct links of GPUs A and B)%s",
                            item,
                            kind == TOPO_FAULT_LINKS_DOWN
                                ? ", with xN for N of the bundle's links, such as 3:1x2"
                                : ", such as 3:1 or 0-1");
    if (counted && kind != TOPO_FAULT_LINKS_DOWN)
        return hw_keys_fail(error, path, "faults", key,
                            "'%s': a slow or noisy bundle is named whole; expected G:P or A-B "
                            "(links_down takes xN)",
                            item);
    if (sep == '-' && a == b)
        return hw_keys_fail(
            error, path, "faults", key,
            "'%s' joins GPU %" G_GUINT64_FORMAT " to itself; expected two different GPUs", item, a);
    *out = (TopoFault){.kind = kind, .n_links = (uint32_t)n, .nic = TOPO_FAULT_NONE};
    if (sep == ':') {
        out->gpu = (uint32_t)a;
        out->plane = (uint32_t)b;
        out->peer = TOPO_FAULT_NONE;
    } else {
        out->gpu = (uint32_t)MIN(a, b);
        out->peer = (uint32_t)MAX(a, b);
        out->plane = TOPO_FAULT_NONE;
    }
    return true;
}

/* Items separated by commas and/or blanks. */
static bool
parse_list(TopoFaults *faults, TopoFaultKind kind, const char *text, const char *path,
           GError **error)
{
    if (text == NULL)
        return true;
    g_auto(GStrv) items = g_strsplit_set(text, ", \t", -1);
    for (char **item = items; *item; item++) {
        if (**item == '\0')
            continue;
        TopoFault f;
        if (kind == TOPO_FAULT_PLANE_DOWN || kind == TOPO_FAULT_NIC_DOWN ||
            kind == TOPO_FAULT_NIC_SLOW) {
            const char *p = *item;
            uint64_t k;
            bool plane = kind == TOPO_FAULT_PLANE_DOWN;
            if (!hw_keys_take_number(&p, &k) || *p != '\0' || k >= TOPO_FAULT_NONE)
                return hw_keys_fail(error, path, "faults", kind_keys[kind],
                                    "'%s' is not a %s number; expected %s such as 1 or 1,3", *item,
                                    plane ? "plane" : "NIC",
                                    plane ? "NVSwitch planes" : "a node's NICs");
            f = (TopoFault){.kind = kind,
                            .gpu = TOPO_FAULT_NONE,
                            .plane = plane ? (uint32_t)k : TOPO_FAULT_NONE,
                            .peer = TOPO_FAULT_NONE,
                            .nic = plane ? TOPO_FAULT_NONE : (uint32_t)k};
        } else if (!parse_bundle(*item, kind, path, &f, error)) {
            return false;
        }
        g_array_append_val(faults->faults, f);
    }
    return true;
}

static bool
has_kind(const TopoFaults *faults, TopoFaultKind kind)
{
    for (guint i = 0; i < faults->faults->len; i++)
        if (fault_at(faults, i)->kind == kind)
            return true;
    return false;
}

/* The rates slow and noisy bundles need. */
static bool
take_rates(TopoFaults *faults, const FaultsFile *f, const char *path, GError **error)
{
    /* A rate alone slows nothing: say so rather than run unchanged. */
    bool slow = has_kind(faults, TOPO_FAULT_SLOW) || has_kind(faults, TOPO_FAULT_NIC_SLOW);
    if (f->slow_rate >= 0 && !slow)
        return hw_keys_fail(error, path, "faults", "slow_rate",
                            "given without slow_links or slow_nics; expected the bundles or "
                            "NICs it slows too, such as slow_links = 3:1");
    if (f->crc_error_rate >= 0 && !has_kind(faults, TOPO_FAULT_CRC))
        return hw_keys_fail(error, path, "faults", "crc_error_rate",
                            "given without crc_links; expected the bundles it corrupts too, such "
                            "as crc_links = 3:1");
    if (f->slow_rate >= 0)
        faults->slow_rate = f->slow_rate;
    else if (slow)
        return hw_keys_fail(error, path, "faults", "slow_rate",
                            "missing; slow_links and slow_nics need the share of the rate they "
                            "keep, such as 0.5");
    if (f->crc_error_rate >= 0)
        faults->crc_error_rate = f->crc_error_rate;
    else if (has_kind(faults, TOPO_FAULT_CRC))
        return hw_keys_fail(error, path, "faults", "crc_error_rate",
                            "missing; crc_links needs the probability a packet fails, such as "
                            "1e-4");
    return true;
}

bool
topo_faults_load(TopoFaults *faults, GKeyFile *kf, const char *path, GError **error)
{
    if (!g_key_file_has_group(kf, "faults"))
        return true;
    FaultsFile f = {.slow_rate = -1, .crc_error_rate = -1};
    bool ok = hw_keys_load(kf, path, "faults", topo_fault_keys, TOPO_N_FAULT_KEYS, &f, error) &&
              parse_list(faults, TOPO_FAULT_PLANE_DOWN, f.planes_down, path, error) &&
              parse_list(faults, TOPO_FAULT_LINKS_DOWN, f.links_down, path, error) &&
              parse_list(faults, TOPO_FAULT_SLOW, f.slow_links, path, error) &&
              parse_list(faults, TOPO_FAULT_CRC, f.crc_links, path, error) &&
              parse_list(faults, TOPO_FAULT_NIC_DOWN, f.nics_down, path, error) &&
              parse_list(faults, TOPO_FAULT_NIC_SLOW, f.slow_nics, path, error) &&
              take_rates(faults, &f, path, error);
    g_free(f.planes_down);
    g_free(f.links_down);
    g_free(f.slow_links);
    g_free(f.crc_links);
    g_free(f.nics_down);
    g_free(f.slow_nics);
    return ok;
}

static const HwKey *
find_key(const char *key)
{
    for (unsigned i = 0; i < TOPO_N_FAULT_KEYS; i++)
        if (strcmp(topo_fault_keys[i].name, key) == 0)
            return &topo_fault_keys[i];
    return NULL;
}

bool
topo_faults_key_known(const char *key)
{
    return find_key(key) != NULL;
}

TopoFaults *
topo_faults_from_sets(char **sets, const char *what, GError **error)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    for (char **set = sets; set != NULL && *set != NULL; set++) {
        const char *eq = strchr(*set, '=');
        g_autofree char *name = eq ? g_strstrip(g_strndup(*set, eq - *set)) : NULL;
        const HwKey *key = name ? find_key(name) : NULL;
        if (key == NULL) {
            GString *known = g_string_new(NULL);
            for (unsigned i = 0; i < TOPO_N_FAULT_KEYS; i++)
                g_string_append_printf(known, "%s%s", i ? ", " : "", topo_fault_keys[i].name);
            g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_UNKNOWN,
                        "%s %s: expected KEY=VALUE with KEY one of: %s", what, *set, known->str);
            g_string_free(known, TRUE);
            return NULL;
        }
        /* A list key given twice adds to its list; a rate is replaced. */
        g_autofree char *old = g_key_file_get_value(kf, "faults", name, NULL);
        g_autofree char *value = key->kind == HW_KEY_STRING && old != NULL
                                     ? g_strdup_printf("%s, %s", old, eq + 1)
                                     : g_strdup(eq + 1);
        g_key_file_set_value(kf, "faults", name, value);
    }
    TopoFaults *faults = topo_faults_new();
    if (!topo_faults_load(faults, kf, what, error)) {
        topo_faults_free(faults);
        return NULL;
    }
    return faults;
}

bool
topo_faults_empty(const TopoFaults *faults)
{
    return faults == NULL || faults->faults->len == 0;
}

bool
topo_faults_single_out_gpus(const TopoFaults *faults)
{
    for (guint i = 0; faults != NULL && i < faults->faults->len; i++)
        if (fault_at(faults, i)->kind != TOPO_FAULT_PLANE_DOWN)
            return true;
    return false;
}

/* ---- Checking against a system. ---- */

/* The fault as it would be written. */
static char *
fault_text(const TopoFault *f)
{
    if (f->kind == TOPO_FAULT_PLANE_DOWN)
        return g_strdup_printf("%u", f->plane);
    if (f->kind == TOPO_FAULT_NIC_DOWN || f->kind == TOPO_FAULT_NIC_SLOW)
        return g_strdup_printf("%u", f->nic);
    GString *s = g_string_new(NULL);
    if (f->plane != TOPO_FAULT_NONE)
        g_string_printf(s, "%u:%u", f->gpu, f->plane);
    else
        g_string_printf(s, "%u-%u", f->gpu, f->peer);
    if (f->n_links > 0)
        g_string_append_printf(s, "x%u", f->n_links);
    return g_string_free(s, FALSE);
}

static bool
check_plane(const TopoFault *f, const char *item, const HwSystem *sys, GError **error)
{
    const char *key = kind_keys[f->kind];
    if (sys->nvswitch == NULL)
        return hw_keys_failf(error,
                             "[faults] %s: '%s': %s has no NVSwitch planes; expected direct "
                             "links as A-B",
                             key, item, sys->id);
    if (f->plane >= sys->n_switches_per_board)
        return hw_keys_failf(error,
                             "[faults] %s: '%s' names plane %u; expected NVSwitch planes 0 to %u "
                             "of %s",
                             key, item, f->plane, sys->n_switches_per_board - 1, sys->id);
    return true;
}

/* The links of f's bundle in the system, or 0 and an error. */
static uint32_t
check_bundle(const TopoFault *f, const char *item, const HwSystem *sys, GError **error)
{
    const char *key = kind_keys[f->kind];
    uint32_t gpu = f->peer != TOPO_FAULT_NONE ? MAX(f->gpu, f->peer) : f->gpu;
    if (gpu >= sys->n_gpus) {
        hw_keys_failf(error, "[faults] %s: '%s' names GPU %u; expected GPUs 0 to %u of %s", key,
                      item, gpu, sys->n_gpus - 1, sys->id);
        return 0;
    }
    if (f->plane != TOPO_FAULT_NONE)
        return check_plane(f, item, sys, error) ? sys->gpu_switch_links[f->plane] : 0;
    uint32_t n = hw_system_pair_links(sys, f->gpu, f->peer);
    if (n == 0) {
        GString *pairs = g_string_new(NULL);
        for (uint32_t i = 0; i < sys->n_pairs; i++)
            g_string_append_printf(pairs, "%s%u-%u", i ? ", " : "", sys->pairs[i].a,
                                   sys->pairs[i].b);
        hw_keys_failf(error,
                      "[faults] %s: '%s': GPUs %u and %u of %s have no direct link; expected "
                      "%s%s",
                      key, item, f->gpu, f->peer, sys->id,
                      sys->n_pairs > 0 ? "one of: " : "G:P for a GPU's links to an NVSwitch plane",
                      pairs->str);
        g_string_free(pairs, TRUE);
    }
    return n;
}

/* Links lost by f's bundle in all of links_down's partial items. */
static uint32_t
partial_losses(const TopoFaults *faults, const TopoFault *f)
{
    uint32_t lost = 0;
    for (guint i = 0; i < faults->faults->len; i++) {
        const TopoFault *g = fault_at(faults, i);
        if (g->kind == TOPO_FAULT_LINKS_DOWN && g->gpu == f->gpu && g->plane == f->plane &&
            g->peer == f->peer)
            lost += g->n_links;
    }
    return lost;
}

/* What a slow or noisy bundle's links still deliver may not fall below
 * what a link model may have: transfers at a billionth of a link's rate
 * would outlast the simulated clock. The key named is slow_rate when the
 * share alone leaves too little, else crc_error_rate. */
static bool
check_delivered(const TopoFaults *faults, const TopoFault *f, const char *item, const HwSystem *sys,
                GError **error)
{
    const HwLink *spec = sys->nvlink;
    TopoBundleFault bf;
    topo_faults_bundle(faults, f->gpu, f->plane, f->peer, 1, &bf);
    double p = bf.packet_error_rate >= 0 ? bf.packet_error_rate : spec->packet_error_rate;
    double left = hw_link_delivered_bytes_per_s(spec, bf.rate_factor, p);
    if (left >= (double)HW_KEYS_MIN_BYTES_PER_S)
        return true;
    bool slow = hw_link_delivered_bytes_per_s(spec, bf.rate_factor, spec->packet_error_rate) <
                (double)HW_KEYS_MIN_BYTES_PER_S;
    g_autofree char *value = hw_keys_number_text(slow ? bf.rate_factor : p);
    return hw_keys_failf(error,
                         "[faults] %s: %s leaves each link of '%s' %.3g GB/s of %s's %.3g GB/s%s: "
                         "expected %s that leaves at least %g GB/s",
                         slow ? "slow_rate" : "crc_error_rate", value, item, left / 1e9, spec->name,
                         (double)spec->bytes_per_s / 1e9,
                         slow ? "" : " (a failed packet is sent again after replay_latency)",
                         slow ? "a share" : "a probability", (double)HW_KEYS_MIN_BYTES_PER_S / 1e9);
}

/* A NIC the system has, and not every one of them down. */
static bool
check_nic(const TopoFaults *faults, const TopoFault *f, const char *item, const HwSystem *sys,
          GError **error)
{
    const char *key = kind_keys[f->kind];
    if (sys->nic == NULL || sys->n_nics == 0)
        return hw_keys_failf(error, "[faults] %s: '%s': %s has no scale-out NICs", key, item,
                             sys->id);
    if (f->nic >= sys->n_nics)
        return hw_keys_failf(error, "[faults] %s: '%s' names NIC %u; expected NICs 0 to %u of %s",
                             key, item, f->nic, sys->n_nics - 1, sys->id);
    if (f->kind == TOPO_FAULT_NIC_DOWN && sys->rail_only)
        return hw_keys_failf(error,
                             "[faults] nics_down: '%s': on %s's rail-only fabric a NIC down cuts "
                             "its node off its rail, which is not simulated; expected slow_nics "
                             "or a fabric with a spine (rail_only = no)",
                             item, sys->id);
    uint32_t up = 0;
    for (uint32_t k = 0; k < sys->n_nics; k++)
        up += !topo_faults_nic_down(faults, k);
    if (up == 0)
        return hw_keys_failf(error,
                             "[faults] nics_down: every one of %s's %u NICs is down; expected at "
                             "least one up",
                             sys->id, sys->n_nics);
    return true;
}

bool
topo_faults_check(const TopoFaults *faults, const HwSystem *sys, GError **error)
{
    for (guint i = 0; faults != NULL && i < faults->faults->len; i++) {
        const TopoFault *f = fault_at(faults, i);
        g_autofree char *item = fault_text(f);
        if (f->kind == TOPO_FAULT_PLANE_DOWN) {
            if (!check_plane(f, item, sys, error))
                return false;
            continue;
        }
        if (f->kind == TOPO_FAULT_NIC_DOWN || f->kind == TOPO_FAULT_NIC_SLOW) {
            if (!check_nic(faults, f, item, sys, error))
                return false;
            continue;
        }
        uint32_t n = check_bundle(f, item, sys, error);
        if (n == 0)
            return false;
        if ((f->kind == TOPO_FAULT_SLOW || f->kind == TOPO_FAULT_CRC) && sys->nvlink != NULL &&
            !check_delivered(faults, f, item, sys, error))
            return false;
        uint32_t lost = f->kind == TOPO_FAULT_LINKS_DOWN ? partial_losses(faults, f) : 0;
        if (lost > n)
            return hw_keys_failf(error,
                                 "[faults] links_down: '%s' takes %u link%s in all from a bundle "
                                 "of %u; expected xN with N at most %u (or no xN: all of them)",
                                 item, lost, lost == 1 ? "" : "s", n, n);
    }
    return true;
}

/* ---- What the builder asks. ---- */

bool
topo_faults_plane_down(const TopoFaults *faults, uint32_t plane)
{
    for (guint i = 0; faults != NULL && i < faults->faults->len; i++) {
        const TopoFault *f = fault_at(faults, i);
        if (f->kind == TOPO_FAULT_PLANE_DOWN && f->plane == plane)
            return true;
    }
    return false;
}

bool
topo_faults_nic_down(const TopoFaults *faults, uint32_t nic)
{
    for (guint i = 0; faults != NULL && i < faults->faults->len; i++) {
        const TopoFault *f = fault_at(faults, i);
        if (f->kind == TOPO_FAULT_NIC_DOWN && f->nic == nic)
            return true;
    }
    return false;
}

double
topo_faults_nic_rate(const TopoFaults *faults, uint32_t nic)
{
    for (guint i = 0; faults != NULL && i < faults->faults->len; i++) {
        const TopoFault *f = fault_at(faults, i);
        if (f->kind == TOPO_FAULT_NIC_SLOW && f->nic == nic)
            return faults->slow_rate;
    }
    return 1.0;
}

void
topo_faults_bundle(const TopoFaults *faults, uint32_t gpu, uint32_t plane, uint32_t peer,
                   uint32_t n_links, TopoBundleFault *out)
{
    *out = (TopoBundleFault){.n_links = n_links, .rate_factor = 1.0, .packet_error_rate = -1.0};
    if (peer != TOPO_FAULT_NONE && peer < gpu) {
        uint32_t t = gpu;
        gpu = peer;
        peer = t;
    }
    bool all = plane != TOPO_FAULT_NONE && topo_faults_plane_down(faults, plane);
    uint32_t lost = 0;
    for (guint i = 0; faults != NULL && i < faults->faults->len; i++) {
        const TopoFault *f = fault_at(faults, i);
        if (f->kind == TOPO_FAULT_PLANE_DOWN || f->kind == TOPO_FAULT_NIC_DOWN ||
            f->kind == TOPO_FAULT_NIC_SLOW || f->gpu != gpu || f->plane != plane || f->peer != peer)
            continue;
        if (f->kind == TOPO_FAULT_LINKS_DOWN) {
            all = all || f->n_links == 0;
            lost += f->n_links;
        } else if (f->kind == TOPO_FAULT_SLOW) {
            out->rate_factor = faults->slow_rate;
        } else {
            out->packet_error_rate = faults->crc_error_rate;
        }
    }
    out->n_links = all || lost >= n_links ? 0 : n_links - lost;
}

/* ---- Reports. ---- */

static void
describe_bundle(GString *s, const TopoFault *f, const HwSystem *sys)
{
    if (f->plane != TOPO_FAULT_NONE)
        g_string_append_printf(s, "GPU %u to plane %u", f->gpu, f->plane);
    else
        g_string_append_printf(s, "GPUs %u-%u", f->gpu, f->peer);
    uint32_t n = 0;
    if (sys != NULL && f->gpu < sys->n_gpus)
        n = f->plane != TOPO_FAULT_NONE
                ? (f->plane < sys->n_switches_per_board && sys->gpu_switch_links != NULL
                       ? sys->gpu_switch_links[f->plane]
                       : 0)
                : hw_system_pair_links(sys, f->gpu, f->peer);
    if (n > 0)
        g_string_append_printf(s, " (%u link%s)", n, n == 1 ? "" : "s");
}

char *
topo_faults_describe(const TopoFaults *faults, const HwSystem *sys)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; faults != NULL && i < faults->faults->len; i++) {
        const TopoFault *f = fault_at(faults, i);
        if (s->len > 0)
            g_string_append(s, "; ");
        if (f->kind == TOPO_FAULT_PLANE_DOWN) {
            g_string_append_printf(s, "NVSwitch plane %u down", f->plane);
            continue;
        }
        if (f->kind == TOPO_FAULT_NIC_DOWN || f->kind == TOPO_FAULT_NIC_SLOW) {
            if (f->kind == TOPO_FAULT_NIC_DOWN)
                g_string_append_printf(s, "NIC %u down", f->nic);
            else
                g_string_append_printf(s, "NIC %u: at %g of its rate", f->nic, faults->slow_rate);
            continue;
        }
        describe_bundle(s, f, sys);
        if (f->kind == TOPO_FAULT_LINKS_DOWN && f->n_links > 0)
            g_string_append_printf(s, ": %u link%s down", f->n_links, f->n_links == 1 ? "" : "s");
        else if (f->kind == TOPO_FAULT_LINKS_DOWN)
            g_string_append(s, ": down");
        else if (f->kind == TOPO_FAULT_SLOW)
            g_string_append_printf(s, ": at %g of its rate", faults->slow_rate);
        else
            g_string_append_printf(s, ": CRC errors on %g of packets", faults->crc_error_rate);
    }
    if (s->len > 0)
        g_string_append(s, " (on every node)");
    return g_string_free(s, FALSE);
}
