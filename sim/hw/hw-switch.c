/* SPDX-License-Identifier: Apache-2.0 */
/* Switch models from models/switch/NAME.ini: an NVSwitch generation or an
 * InfiniBand/Ethernet fabric switch, with the link model of its ports
 * (models/link/LINK.ini) loaded alongside.
 *
 * A switch is described as a crossbar: a port count, one port-to-port
 * latency, an input buffer per port and, for NVSwitch gen 3 and later, an
 * in-switch reduction rate (NVLS) per port; InfiniBand switches from
 * Switch-IB 2 on, their SHARP generation and its reduction rate per port. Internal stages of
 * multi-chip boxes are folded into the one latency. Units as in hw-switch.h.
 */
#include "hw/hw-switch.h"

#include "hw/hw-keys.h"

typedef struct SwitchFile {
    HwSwitch sw;
    char *kind;
} SwitchFile;

#define FIELD(f) offsetof(SwitchFile, sw.f)

static const HwKey switch_keys[] = {
    {"name", HW_KEY_STRING, FIELD(name), true, "the switch's name, such as NVSwitch gen 3"},
    {"kind", HW_KEY_STRING, offsetof(SwitchFile, kind), true, "nvswitch or network"},
    {"generation", HW_KEY_COUNT, FIELD(generation), false,
     "the NVSwitch generation, 1 to 4; omit for network switches"},
    {"ports", HW_KEY_COUNT, FIELD(n_ports), true, "the number of ports, such as 64"},
    {"link", HW_KEY_STRING, FIELD(link_model), true,
     "the link model of a port, a file stem under models/link such as nvlink4"},
    {"latency", HW_KEY_TIME_PS, FIELD(latency_ps), true,
     "port to port, head in to head out, such as 200ns"},
    {"port_buffer", HW_KEY_SIZE_BYTES, FIELD(port_buffer_bytes), true,
     "the input buffer of one port, such as 32KiB"},
    {"nvls", HW_KEY_BOOL, FIELD(nvls), false,
     "yes if the switch multicasts and reduces (NVLink SHARP); no if omitted"},
    {"nvls_bandwidth", HW_KEY_BYTES_PER_S, FIELD(nvls_bytes_per_s), false,
     "the reduction rate per port, such as 25GB/s; only with nvls = yes"},
    {"sharp", HW_KEY_COUNT, FIELD(sharp_version), false,
     "the SHARP generation of an InfiniBand switch, 1 to 4; omit (or 0) for none"},
    {"sharp_bandwidth", HW_KEY_BYTES_PER_S, FIELD(sharp_bytes_per_s), false,
     "the SHARP reduction rate per port, such as 50GB/s; only with sharp"},
};

const HwKeyTable hw_switch_key_table = {"models/switch/ID.ini", "switch", switch_keys, G_N_ELEMENTS(switch_keys)};

/* Indexed by HwSwitchKind: its word, the generations it accepts and the
 * kind of link its ports must be. */
static const struct {
    const char *name;
    uint64_t min_generation, max_generation;
    HwLinkKind port_kind;
} kinds[] = {
    [HW_SWITCH_NVSWITCH] = {"nvswitch", 1, 5, HW_LINK_NVLINK},
    [HW_SWITCH_NETWORK] = {"network", 0, 0, HW_LINK_NETWORK},
};

static void
hw_switch_clear(HwSwitch *sw)
{
    g_free(sw->name);
    g_free(sw->link_model);
    hw_link_free(sw->link);
    sw->name = sw->link_model = NULL;
    sw->link = NULL;
}

void
hw_switch_free(HwSwitch *sw)
{
    if (sw == NULL)
        return;
    hw_switch_clear(sw);
    g_free(sw);
}

static bool
parse_kind(const char *path, const char *text, HwSwitchKind *out, GError **error)
{
    const char *names[G_N_ELEMENTS(kinds)];
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
        names[i] = kinds[i].name;
    size_t index;
    if (!hw_keys_choice(path, "switch", "kind", text, names, G_N_ELEMENTS(names), &index, error))
        return false;
    *out = (HwSwitchKind)index;
    return true;
}

static bool
load_link(HwSwitch *sw, const char *path, const char *models_dir, GError **error)
{
    sw->link = hw_link_load_by_name(sw->link_model, models_dir, error);
    if (sw->link == NULL) {
        g_prefix_error(error, "%s: [switch] link: ", path);
        return false;
    }
    HwLinkKind want = kinds[sw->kind].port_kind;
    if (sw->link->kind != want)
        return hw_keys_fail(error, path, "switch", "link",
                            "'%s' is a %s link: expected a link of kind %s for a %s switch",
                            sw->link_model, hw_link_kind_name(sw->link->kind),
                            hw_link_kind_name(want), kinds[sw->kind].name);
    return true;
}

static bool
check_nvls(const HwSwitch *sw, const char *path, GError **error)
{
    if (sw->nvls && sw->kind != HW_SWITCH_NVSWITCH)
        return hw_keys_fail(error, path, "switch", "nvls",
                            "yes on a network switch: expected no (NVLS is an NVSwitch feature)");
    if (sw->nvls && sw->nvls_bytes_per_s == 0)
        return hw_keys_fail(error, path, "switch", "nvls_bandwidth",
                            "missing with nvls = yes: expected a reduction rate such as 25GB/s");
    if (!sw->nvls && sw->nvls_bytes_per_s != 0)
        return hw_keys_fail(error, path, "switch", "nvls_bandwidth",
                            "given with nvls = no: expected nvls = yes, or no nvls_bandwidth");
    return true;
}

static bool
check_sharp(const HwSwitch *sw, const char *path, GError **error)
{
    if (!hw_keys_check_range(path, "switch", "sharp", sw->sharp_version, 0, 4, error))
        return false;
    if (sw->sharp_version > 0 && sw->kind != HW_SWITCH_NETWORK)
        return hw_keys_fail(error, path, "switch", "sharp",
                            "%" G_GUINT64_FORMAT " on an NVSwitch: expected 0 or none (SHARP on "
                            "an NVSwitch is nvls)",
                            sw->sharp_version);
    if (sw->sharp_version > 0 && sw->sharp_bytes_per_s == 0)
        return hw_keys_fail(error, path, "switch", "sharp_bandwidth",
                            "missing with sharp = %" G_GUINT64_FORMAT
                            ": expected a reduction rate such as 50GB/s",
                            sw->sharp_version);
    if (sw->sharp_version == 0 && sw->sharp_bytes_per_s != 0)
        return hw_keys_fail(error, path, "switch", "sharp_bandwidth",
                            "given without sharp: expected sharp = 1 to 4, or no sharp_bandwidth");
    return true;
}

static bool
check(const HwSwitch *sw, const char *path, GError **error)
{
    uint64_t packet =
        sw->link->header_bytes + MAX(sw->link->sm_payload_bytes, sw->link->ce_payload_bytes);
    if (sw->port_buffer_bytes < packet)
        return hw_keys_fail(error, path, "switch", "port_buffer",
                            "%" G_GUINT64_FORMAT
                            " B cannot hold one packet of '%s' (%" G_GUINT64_FORMAT
                            " B): expected a larger buffer",
                            sw->port_buffer_bytes, sw->link_model, packet);
    return hw_keys_check_range(path, "switch", "generation", sw->generation,
                               kinds[sw->kind].min_generation, kinds[sw->kind].max_generation,
                               error) &&
           hw_keys_check_range(path, "switch", "ports", sw->n_ports, 1, 4096, error) &&
           check_nvls(sw, path, error) && check_sharp(sw, path, error);
}

static HwSwitch *
switch_load(const char *path, const char *data, gsize length, const char *models_dir,
            GError **error)
{
    g_autoptr(GKeyFile) kf = hw_keys_open(path, "a model file", "switch", data, length, error);
    if (kf == NULL)
        return NULL;
    SwitchFile file = {0};
    bool ok =
        hw_keys_load(kf, path, "switch", switch_keys, G_N_ELEMENTS(switch_keys), &file, error) &&
        parse_kind(path, file.kind, &file.sw.kind, error) &&
        load_link(&file.sw, path, models_dir, error) && check(&file.sw, path, error);
    g_free(file.kind);
    if (!ok) {
        hw_switch_clear(&file.sw);
        return NULL;
    }
    HwSwitch *sw = g_new(HwSwitch, 1);
    *sw = file.sw;
    return sw;
}

HwSwitch *
hw_switch_load(const char *path, const char *models_dir, GError **error)
{
    return switch_load(path, NULL, 0, models_dir, error);
}

HwSwitch *
hw_switch_load_data(const char *data, gsize length, const char *path, const char *models_dir,
                    GError **error)
{
    g_return_val_if_fail(data != NULL, NULL);
    return switch_load(path, data, length, models_dir, error);
}
