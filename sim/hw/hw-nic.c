/* SPDX-License-Identifier: Apache-2.0 */
/* NIC models from models/nic/NAME.ini: a network adapter (ConnectX-4 ...
 * ConnectX-8, a cloud adapter such as AWS EFA) with the link model of its
 * port (models/link/LINK.ini) loaded alongside.
 *
 * An adapter is a fixed processing latency (send side plus receive side)
 * between a PCIe attachment and one network port; queue pairs, message
 * rates and transport offloads are not modelled. Units as in hw-nic.h.
 */
#include "hw/hw-nic.h"

#include "hw/hw-keys.h"

#define FIELD(f) offsetof(HwNic, f)

static const HwKey nic_keys[] = {
    {"name", HW_KEY_STRING, FIELD(name), true, "the adapter's name, such as ConnectX-7 NDR"},
    {"link", HW_KEY_STRING, FIELD(port_link_model), true,
     "the link model of its port, a file stem under models/link such as ib-ndr"},
    {"pcie_generation", HW_KEY_COUNT, FIELD(pcie_generation), true, "3 to 6"},
    {"pcie_lanes", HW_KEY_COUNT, FIELD(pcie_lanes), true, "the host lanes, such as 16"},
    {"latency", HW_KEY_TIME_PS, FIELD(latency_ps), true,
     "adapter processing for one message, send side plus receive side, such as 600ns"},
    {"transports", HW_KEY_STRING, FIELD(transports), true,
     "the transport model ids (models/transport) it carries, the default first, such as "
     "ib-verbs"},
};

const HwKeyTable hw_nic_key_table = {"models/nic/ID.ini", "nic", nic_keys, G_N_ELEMENTS(nic_keys)};

void
hw_nic_free(HwNic *nic)
{
    if (nic == NULL)
        return;
    g_free(nic->name);
    g_free(nic->port_link_model);
    g_free(nic->transports);
    hw_link_free(nic->port_link);
    g_free(nic);
}

static bool
load_link(HwNic *nic, const char *path, const char *models_dir, GError **error)
{
    nic->port_link = hw_link_load_by_name(nic->port_link_model, models_dir, error);
    if (nic->port_link == NULL) {
        g_prefix_error(error, "%s: [nic] link: ", path);
        return false;
    }
    if (nic->port_link->kind != HW_LINK_NETWORK)
        return hw_keys_fail(error, path, "nic", "link",
                            "'%s' is a %s link: expected a link of kind network",
                            nic->port_link_model, hw_link_kind_name(nic->port_link->kind));
    return true;
}

/* The transport ids of nic, in order (empty items left out). */
static GStrv
transport_ids(const HwNic *nic)
{
    g_auto(GStrv) items = g_strsplit_set(nic->transports, ", \t", -1);
    g_autoptr(GStrvBuilder) ids = g_strv_builder_new();
    for (char **item = items; *item; item++)
        if (**item != '\0')
            g_strv_builder_add(ids, *item);
    return g_strv_builder_end(ids);
}

bool
hw_nic_carries(const HwNic *nic, const char *id)
{
    g_auto(GStrv) ids = transport_ids(nic);
    return g_strv_contains((const char *const *)ids, id);
}

char *
hw_nic_default_transport(const HwNic *nic)
{
    g_auto(GStrv) ids = transport_ids(nic);
    return g_strdup(ids[0]);
}

static bool
check(const HwNic *nic, const char *path, GError **error)
{
    g_auto(GStrv) ids = transport_ids(nic);
    if (ids[0] == NULL)
        return hw_keys_fail(error, path, "nic", "transports",
                            "'%s' names none; expected transport ids such as ib-verbs",
                            nic->transports);
    return hw_keys_check_range(path, "nic", "pcie_generation", nic->pcie_generation, 3, 6, error) &&
           hw_keys_check_range(path, "nic", "pcie_lanes", nic->pcie_lanes, 1, 64, error);
}

static HwNic *
nic_load(const char *path, const char *data, gsize length, const char *models_dir, GError **error)
{
    g_autoptr(GKeyFile) kf = hw_keys_open(path, "a model file", "nic", data, length, error);
    if (kf == NULL)
        return NULL;
    g_autoptr(HwNic) nic = g_new0(HwNic, 1);
    if (!hw_keys_load(kf, path, "nic", nic_keys, G_N_ELEMENTS(nic_keys), nic, error) ||
        !check(nic, path, error) || !load_link(nic, path, models_dir, error))
        return NULL;
    return g_steal_pointer(&nic);
}

HwNic *
hw_nic_load(const char *path, const char *models_dir, GError **error)
{
    return nic_load(path, NULL, 0, models_dir, error);
}

HwNic *
hw_nic_load_data(const char *data, gsize length, const char *path, const char *models_dir,
                 GError **error)
{
    g_return_val_if_fail(data != NULL, NULL);
    return nic_load(path, data, length, models_dir, error);
}
