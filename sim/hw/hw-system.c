/* SPDX-License-Identifier: Apache-2.0 */
/* System models from models/system/NAME.ini: how GPUs, NVLinks, NVSwitch
 * chips, hosts and NICs are wired into one NVLink domain (a node), and how
 * nodes join a fabric. Description only. The file names its parts by id
 * (models/{gpu,link,switch,nic}/ID.ini) and gives the wiring as counts:
 * direct GPU pairs, and for switch systems the links from every GPU to each
 * switch of its board plus trunks between boards. The loader checks that
 * the wiring adds up (every GPU's NVLinks accounted for, no switch with
 * more links than ports, pairs naming real GPUs once each, counts that
 * divide evenly); each system's figures and their sources live in its file.
 */
#include "hw/hw-system.h"

#include <string.h>

#include "core/core-units.h"
#include "hw/hw-keys.h"
#include "hw/hw-models.h"

/* Generous bounds that keep products of counts far from overflow. */
#define MAX_GPUS 4096
#define MAX_LINKS 1024

/* The file as written: ids, counts and list texts, before they are
 * resolved into parts and checked. */
typedef struct SystemSpec {
    char *status;
    char *name;
    char *gpu;
    uint64_t n_gpus;

    char *nvlink;
    char *nvswitch;
    uint64_t n_boards;
    uint64_t n_switches;
    char *gpu_switch_links;
    uint64_t n_trunk_links;
    uint64_t n_spine_links;
    char *pairs;

    uint64_t n_hosts;
    uint64_t n_cpus;
    char *gpu_link;
    char *pcie;
    uint64_t gpus_per_pcie_switch;
    char *cpu_link;
    uint64_t copy_overhead_ps;
    char *runtime;
    uint64_t kernel_setup_ps; /* the runtime's, overridden where the file gives it */
    double nvlink_efficiency, nic_efficiency;
    uint64_t nic_latency_ps; /* the NIC's, overridden where the file gives it */
    char *base;

    char *nic;
    uint64_t n_nics;
    uint64_t n_ports_per_nic;
    uint64_t n_net_devices;
    uint64_t net_latency_ps;
    char *transport;
    char *fabric_switch;
    bool rail_optimized, rail_only;
    uint64_t oversubscription;
    uint64_t tiers;
    bool collnet;
    uint64_t n_nodes;

    HwNcclEnv nccl;
} SystemSpec;

#define SPEC(f) offsetof(SystemSpec, f)

static const HwKey system_keys[] = {
    {"name", HW_KEY_STRING, SPEC(name), true, "the product name, such as NVIDIA DGX H100"},
    {"gpu", HW_KEY_STRING, SPEC(gpu), true,
     "a GPU model id (models/gpu/ID.ini), such as h100-sxm5"},
    {"gpus", HW_KEY_COUNT, SPEC(n_gpus), true, "the number of GPUs per node, such as 8"},
    {"status", HW_KEY_STRING, SPEC(status), false,
     "product (default: a system one can buy, its parts from datasheets and measurements), "
     "announced (from a vendor's announcements, nothing measured) or what-if (a wiring nobody "
     "sells)"},
    {"base", HW_KEY_STRING, SPEC(base), false,
     "a system id this file derives from: its keys, then this file's over them (a cluster's "
     "own file, such as nvlsim calibrate cluster writes)"},
};

static const HwKey nvlink_keys[] = {
    {"link", HW_KEY_STRING, SPEC(nvlink), true,
     "an NVLink model id (models/link/ID.ini), such as nvlink4"},
    {"switch", HW_KEY_STRING, SPEC(nvswitch), false,
     "an NVSwitch model id (models/switch/ID.ini), such as nvswitch3"},
    {"boards", HW_KEY_COUNT, SPEC(n_boards), false,
     "baseboards sharing the GPUs evenly, each with its own switches (default 1)"},
    {"switches", HW_KEY_COUNT, SPEC(n_switches), false, "NVSwitch chips per board, such as 4"},
    {"gpu_switch_links", HW_KEY_STRING, SPEC(gpu_switch_links), false,
     "links from each GPU to each switch of its board, one count per switch, such as 5,5,4,4"},
    {"trunk_links", HW_KEY_COUNT, SPEC(n_trunk_links), false,
     "links from switch s of a board to switch s of each other board (default 0)"},
    {"spine_links", HW_KEY_COUNT, SPEC(n_spine_links), false,
     "links from switch s of each board up to plane s's spine, a second tier of NVSwitch "
     "chips joining the boards instead of trunks (default 0)"},
    {"pairs", HW_KEY_STRING, SPEC(pairs), false,
     "direct GPU links, such as 0-1, 0-3x2 (A-B for one link, A-BxN for N)"},
    {"efficiency", HW_KEY_FRACTION, SPEC(nvlink_efficiency), false,
     "the share of the NVLink links' rate this system's GPUs reach, fitted on its own runs "
     "(nvlsim calibrate cluster; default 1)"},
};

static const HwKey host_keys[] = {
    {"hosts", HW_KEY_COUNT, SPEC(n_hosts), false,
     "hosts (CPU complexes) sharing the GPUs evenly (default 1)"},
    {"cpus", HW_KEY_COUNT, SPEC(n_cpus), true, "CPU sockets per host, such as 2"},
    {"gpu_link", HW_KEY_STRING, SPEC(gpu_link), true,
     "the link model id from a GPU to its host: pcie3, pcie4, pcie5 or c2c"},
    {"pcie", HW_KEY_STRING, SPEC(pcie), true,
     "the PCIe link model id of switch uplinks and NICs, such as pcie5"},
    {"gpus_per_pcie_switch", HW_KEY_COUNT, SPEC(gpus_per_pcie_switch), false,
     "GPUs behind each PCIe switch; 0 (default) where GPUs attach to the CPU"},
    {"cpu_link", HW_KEY_STRING, SPEC(cpu_link), false,
     "the link model id between the CPUs of a host, such as upi-spr"},
    {"copy_overhead", HW_KEY_TIME_PS, SPEC(copy_overhead_ps), false,
     "fixed cost of one cudaMemcpyPeer beyond moving its bytes, such as 9.6us (default 0)"},
    {"runtime", HW_KEY_STRING, SPEC(runtime), false,
     "the runtime model id (models/runtime/ID.ini) of its collective calls (default nccl)"},
    {"kernel_setup", HW_KEY_TIME_PS, SPEC(kernel_setup_ps), false,
     "the runtime's kernel_setup on this system, fitted on its own runs (nvlsim calibrate "
     "cluster; default: the runtime's)"},
};

static const HwKey network_keys[] = {
    {"nic", HW_KEY_STRING, SPEC(nic), true, "a NIC model id (models/nic/ID.ini), such as cx7-ndr"},
    {"nics", HW_KEY_COUNT, SPEC(n_nics), true, "compute NICs per node, such as 8"},
    {"nic_efficiency", HW_KEY_FRACTION, SPEC(nic_efficiency), false,
     "the share of the NIC ports' rate this system's fabric gives, fitted on its own runs "
     "(nvlsim calibrate cluster; default 1)"},
    {"nic_latency", HW_KEY_TIME_PS, SPEC(nic_latency_ps), false,
     "the NIC's latency on this system, fitted on its own runs (nvlsim calibrate cluster; "
     "default: the NIC model's)"},
    {"ports_per_nic", HW_KEY_COUNT, SPEC(n_ports_per_nic), false,
     "fabric ports of each NIC (default 1)"},
    {"transport", HW_KEY_STRING, SPEC(transport), false,
     "the transport model id (models/transport/ID.ini) NCCL's network plugin drives, one the "
     "NIC carries (default: the NIC's first)"},
    {"net_latency", HW_KEY_TIME_PS, SPEC(net_latency_ps), false,
     "the latency the network plugin reports for its devices on this platform, which NCCL's "
     "tuner adds to every step between nodes (default: the transport's plugin_latency)"},
    {"net_devices", HW_KEY_COUNT, SPEC(n_net_devices), false,
     "NCCL NET devices the network plugin makes of the node's NIC ports, each of an equal "
     "share of them (default: one a port)"},
    {"fabric_switch", HW_KEY_STRING, SPEC(fabric_switch), false,
     "the leaf and spine switch model id, such as ib-qm9700"},
    {"rail_optimized", HW_KEY_BOOL, SPEC(rail_optimized), false,
     "yes (default) or no: NIC k of every node on leaf group k"},
    {"rail_only", HW_KEY_BOOL, SPEC(rail_only), false,
     "yes: each rail its own network, no spine joining rails (a GPU reaches another rail "
     "over NVLink to its node's GPU on that rail, NCCL's PXN); no (default)"},
    {"oversubscription", HW_KEY_COUNT, SPEC(oversubscription), false,
     "a leaf's down ports to each of its up ports, such as 2 for 2:1 (default 1: non-blocking)"},
    {"tiers", HW_KEY_COUNT, SPEC(tiers), false,
     "switch tiers of the fabric: 2 (default: leaf and spine) or 3 (leaf, spine and "
     "super-spine, the spines in pods)"},
    {"collnet", HW_KEY_BOOL, SPEC(collnet), false,
     "yes: NCCL runs with its SHARP plugin and NCCL_COLLNET_ENABLE=1 (needs a fabric switch "
     "with sharp = 2 or later); no (default)"},
    {"nodes", HW_KEY_COUNT, SPEC(n_nodes), false, "nodes on the fabric (default 1)"},
};

typedef struct SystemGroup {
    const char *name;
    const HwKey *keys;
    size_t n_keys;
    bool required;
} SystemGroup;

static const SystemGroup system_groups[] = {
    {"system", system_keys, G_N_ELEMENTS(system_keys), true},
    {"nvlink", nvlink_keys, G_N_ELEMENTS(nvlink_keys), false},
    {"host", host_keys, G_N_ELEMENTS(host_keys), true},
    {"network", network_keys, G_N_ELEMENTS(network_keys), false},
    {"nccl", NULL, 0, false},     /* its own table: hw-nccl-env.c */
    {"loopback", NULL, 0, false}, /* its own table: hw-loopback.c */
};

#define SYSTEM_TABLE(group, keys)                                                                  \
    {                                                                                              \
        "models/system/ID.ini", group, keys, G_N_ELEMENTS(keys)                                    \
    }

static const HwKeyTable system_tables[] = {
    SYSTEM_TABLE("system", system_keys),
    SYSTEM_TABLE("nvlink", nvlink_keys),
    SYSTEM_TABLE("host", host_keys),
    SYSTEM_TABLE("network", network_keys),
};

const HwKeyTable *const hw_model_key_tables[] = {
    &hw_gpu_key_table,
    &hw_link_key_table,
    &hw_switch_key_table,
    &hw_nic_key_table,
    &system_tables[0],
    &system_tables[1],
    &system_tables[2],
    &system_tables[3],
    &hw_nccl_key_table,
    &hw_loopback_key_table,
    &hw_runtime_key_table,
    &hw_transport_key_table,
    NULL,
};

/* Bounds of every count; a group's counts are checked only where the file
 * has the group. */
static const struct {
    const char *group, *key;
    size_t offset;
    uint64_t min, max;
} count_ranges[] = {
    {"system", "gpus", SPEC(n_gpus), 1, MAX_GPUS},
    {"nvlink", "boards", SPEC(n_boards), 1, MAX_GPUS},
    {"network", "oversubscription", SPEC(oversubscription), 1, 16},
    {"network", "tiers", SPEC(tiers), 2, 3},
    {"nvlink", "switches", SPEC(n_switches), 0, MAX_LINKS},
    {"nvlink", "trunk_links", SPEC(n_trunk_links), 0, MAX_LINKS},
    {"nvlink", "spine_links", SPEC(n_spine_links), 0, MAX_LINKS},
    {"host", "hosts", SPEC(n_hosts), 1, MAX_GPUS},
    {"host", "cpus", SPEC(n_cpus), 1, 64},
    {"host", "gpus_per_pcie_switch", SPEC(gpus_per_pcie_switch), 0, MAX_GPUS},
    {"network", "nics", SPEC(n_nics), 1, 16 * MAX_GPUS},
    {"network", "ports_per_nic", SPEC(n_ports_per_nic), 1, 64},
    {"network", "net_devices", SPEC(n_net_devices), 0, 16 * MAX_GPUS},
    {"network", "nodes", SPEC(n_nodes), 1, 1000000},
};

typedef enum PartKind {
    PART_GPU,
    PART_LINK,
    PART_SWITCH,
    PART_NIC,
    PART_RUNTIME,
    PART_TRANSPORT,
} PartKind;

static const struct {
    const char *dir;
    const char *what;
} part_kinds[] = {
    [PART_GPU] = {"gpu", "GPU"},
    [PART_LINK] = {"link", "link"},
    [PART_SWITCH] = {"switch", "switch"},
    [PART_NIC] = {"nic", "NIC"},
    [PART_RUNTIME] = {"runtime", "runtime"},
    [PART_TRANSPORT] = {"transport", "transport"},
};

static void
spec_clear(SystemSpec *spec)
{
    g_free(spec->name);
    g_free(spec->status);
    g_free(spec->gpu);
    g_free(spec->nvlink);
    g_free(spec->nvswitch);
    g_free(spec->gpu_switch_links);
    g_free(spec->pairs);
    g_free(spec->gpu_link);
    g_free(spec->pcie);
    g_free(spec->cpu_link);
    g_free(spec->runtime);
    g_free(spec->base);
    g_free(spec->nic);
    g_free(spec->transport);
    g_free(spec->fabric_switch);
}

void
hw_system_free(HwSystem *system)
{
    if (system == NULL)
        return;
    g_free(system->id);
    g_free(system->name);
    hw_gpu_free(system->gpu);
    hw_link_free(system->nvlink);
    g_free(system->pairs);
    hw_switch_free(system->nvswitch);
    g_free(system->gpu_switch_links);
    hw_link_free(system->gpu_host_link);
    hw_link_free(system->pcie);
    hw_link_free(system->cpu_link);
    hw_nic_free(system->nic);
    hw_transport_free(system->transport);
    hw_switch_free(system->fabric_switch);
    hw_runtime_free(system->runtime);
    hw_loopback_free(system->loopback);
    HwSystemIds *ids = &system->ids;
    char *id_fields[] = {ids->gpu,      ids->nvlink, ids->nvswitch,  ids->gpu_host_link, ids->pcie,
                         ids->cpu_link, ids->nic,    ids->transport, ids->fabric_switch};
    for (size_t i = 0; i < G_N_ELEMENTS(id_fields); i++)
        g_free(id_fields[i]);
    g_free(system);
}

/* Loads the part that group.key of the system file at path names. */
static void *
load_part(const char *path, const char *group, const char *key, const char *models_dir,
          PartKind kind, const char *id, GError **error)
{
    g_autofree char *file =
        hw_models_file(models_dir, part_kinds[kind].dir, part_kinds[kind].what, id, error);
    void *part = NULL;
    if (file != NULL) {
        switch (kind) {
        case PART_GPU:
            part = hw_gpu_load(file, error);
            break;
        case PART_LINK:
            part = hw_link_load(file, error);
            break;
        case PART_SWITCH:
            part = hw_switch_load(file, models_dir, error);
            break;
        case PART_NIC:
            part = hw_nic_load(file, models_dir, error);
            break;
        case PART_RUNTIME:
            part = hw_runtime_load(file, error);
            break;
        case PART_TRANSPORT:
            part = hw_transport_load(file, error);
            break;
        }
    }
    if (part == NULL)
        g_prefix_error(error, "%s: [%s] %s: ", path, group, key);
    return part;
}

static bool
check_groups(GKeyFile *kf, const char *path, GError **error)
{
    /* A file without [system] is some other file (a GPU's, given as
     * --system PATH): say that before naming its groups. */
    if (!g_key_file_has_group(kf, "system")) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_MISSING,
                    "%s: no [system] group: not a system file", path);
        return false;
    }
    g_auto(GStrv) present = g_key_file_get_groups(kf, NULL);
    for (char **group = present; *group; group++) {
        bool known = false;
        for (size_t i = 0; i < G_N_ELEMENTS(system_groups); i++)
            known = known || strcmp(*group, system_groups[i].name) == 0;
        if (!known) {
            g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
                        "%s: [%s]: unknown group; expected system, nvlink, host, network or "
                        "loopback",
                        path, *group);
            return false;
        }
    }
    return true;
}

/* Reads every group the file has into spec (defaults first), then checks
 * each count against its bounds. */
static bool
read_spec(GKeyFile *kf, const char *path, SystemSpec *spec, GError **error)
{
    spec->n_boards = 1;
    spec->n_hosts = 1;
    spec->n_ports_per_nic = 1;
    spec->n_nodes = 1;
    spec->net_latency_ps = UINT64_MAX;
    spec->kernel_setup_ps = UINT64_MAX;
    spec->nic_latency_ps = UINT64_MAX;
    spec->nvlink_efficiency = 1;
    spec->nic_efficiency = 1;
    spec->rail_optimized = true;
    spec->oversubscription = 1;
    spec->tiers = 2;
    if (!check_groups(kf, path, error))
        return false;
    bool loopback = g_key_file_has_group(kf, "loopback");
    for (size_t i = 0; i < G_N_ELEMENTS(system_groups); i++) {
        const SystemGroup *group = &system_groups[i];
        bool has = g_key_file_has_group(kf, group->name);
        if (loopback && has && strcmp(group->name, "system") != 0 &&
            strcmp(group->name, "loopback") != 0) {
            return hw_keys_failf(error,
                                 "%s: [%s]: a loopback system (virtual ranks on one GPU) has no "
                                 "[%s] group; expected only [system] and [loopback]",
                                 path, group->name, group->name);
        }
        if (group->keys == NULL || ((!group->required || loopback) && !has))
            continue;
        if (!hw_keys_load(kf, path, group->name, group->keys, group->n_keys, spec, error))
            return false;
    }
    if (!loopback && !hw_nccl_env_load(kf, path, &spec->nccl, error))
        return false;
    for (size_t i = 0; i < G_N_ELEMENTS(count_ranges); i++) {
        if (!g_key_file_has_group(kf, count_ranges[i].group))
            continue;
        uint64_t value = *(const uint64_t *)((const char *)spec + count_ranges[i].offset);
        if (!hw_keys_check_range(path, count_ranges[i].group, count_ranges[i].key, value,
                                 count_ranges[i].min, count_ranges[i].max, error))
            return false;
    }
    return true;
}

static bool
load_nvlink_parts(HwSystem *system, const SystemSpec *spec, const char *path,
                  const char *models_dir, GError **error)
{
    uint64_t generation = system->gpu->nvlink_generation;
    system->nvlink = load_part(path, "nvlink", "link", models_dir, PART_LINK, spec->nvlink, error);
    if (system->nvlink == NULL)
        return false;
    const HwLink *link = system->nvlink;
    if (link->kind != HW_LINK_NVLINK || link->generation != generation) {
        return hw_keys_fail(
            error, path, "nvlink", "link",
            "%s is of kind %s, generation %" G_GUINT64_FORMAT
            "; expected kind nvlink, generation %" G_GUINT64_FORMAT " (that of the GPU %s)",
            spec->nvlink, hw_link_kind_name(link->kind), link->generation, generation, spec->gpu);
    }
    if (spec->nvswitch == NULL)
        return true;
    system->nvswitch =
        load_part(path, "nvlink", "switch", models_dir, PART_SWITCH, spec->nvswitch, error);
    if (system->nvswitch == NULL)
        return false;
    const HwSwitch *sw = system->nvswitch;
    if (sw->kind != HW_SWITCH_NVSWITCH || sw->link == NULL || sw->link->generation != generation) {
        return hw_keys_fail(error, path, "nvlink", "switch",
                            "%s is not an NVSwitch with NVLink %" G_GUINT64_FORMAT
                            " ports; expected an NVSwitch of the generation of the GPU %s",
                            spec->nvswitch, generation, spec->gpu);
    }
    return true;
}

static bool
load_host_parts(HwSystem *system, const SystemSpec *spec, const char *path, const char *models_dir,
                GError **error)
{
    system->gpu_host_link =
        load_part(path, "host", "gpu_link", models_dir, PART_LINK, spec->gpu_link, error);
    if (system->gpu_host_link == NULL)
        return false;
    HwLinkKind kind = system->gpu_host_link->kind;
    if (kind != HW_LINK_PCIE && kind != HW_LINK_C2C) {
        return hw_keys_fail(error, path, "host", "gpu_link",
                            "%s is of kind %s; expected kind pcie or c2c", spec->gpu_link,
                            hw_link_kind_name(kind));
    }
    system->runtime = load_part(path, "host", "runtime", models_dir, PART_RUNTIME,
                                spec->runtime ? spec->runtime : "nccl", error);
    if (system->runtime == NULL)
        return false;
    system->pcie = load_part(path, "host", "pcie", models_dir, PART_LINK, spec->pcie, error);
    if (system->pcie == NULL)
        return false;
    if (system->pcie->kind != HW_LINK_PCIE) {
        return hw_keys_fail(error, path, "host", "pcie", "%s is of kind %s; expected kind pcie",
                            spec->pcie, hw_link_kind_name(system->pcie->kind));
    }
    if (spec->cpu_link == NULL)
        return true;
    if (spec->n_cpus < 2) {
        return hw_keys_fail(
            error, path, "host", "cpu_link",
            "given for hosts of one CPU; expected cpus of 2 or more, or no cpu_link");
    }
    system->cpu_link =
        load_part(path, "host", "cpu_link", models_dir, PART_LINK, spec->cpu_link, error);
    if (system->cpu_link == NULL)
        return false;
    if (system->cpu_link->kind != HW_LINK_CPU) {
        return hw_keys_fail(error, path, "host", "cpu_link",
                            "%s is of kind %s; expected kind cpu (QPI, UPI)", spec->cpu_link,
                            hw_link_kind_name(system->cpu_link->kind));
    }
    return true;
}

static bool
load_network_parts(HwSystem *system, const SystemSpec *spec, const char *path,
                   const char *models_dir, GError **error)
{
    system->nic = load_part(path, "network", "nic", models_dir, PART_NIC, spec->nic, error);
    if (system->nic == NULL)
        return false;
    g_autofree char *transport =
        spec->transport ? g_strdup(spec->transport) : hw_nic_default_transport(system->nic);
    if (!hw_nic_carries(system->nic, transport))
        return hw_keys_fail(error, path, "network", "transport",
                            "%s is not one the NIC %s carries; expected one of: %s", transport,
                            spec->nic, system->nic->transports);
    system->transport =
        load_part(path, "network", "transport", models_dir, PART_TRANSPORT, transport, error);
    if (system->transport == NULL)
        return false;
    system->ids.transport = g_steal_pointer(&transport);
    if (spec->fabric_switch == NULL)
        return true;
    system->fabric_switch = load_part(path, "network", "fabric_switch", models_dir, PART_SWITCH,
                                      spec->fabric_switch, error);
    if (system->fabric_switch == NULL)
        return false;
    if (system->fabric_switch->kind != HW_SWITCH_NETWORK) {
        return hw_keys_fail(error, path, "network", "fabric_switch",
                            "%s is an NVSwitch; expected an InfiniBand or Ethernet switch",
                            spec->fabric_switch);
    }
    return true;
}

/* Keys that only mean something with a switch must not appear without
 * one; boards and trunks must agree. */
static bool
check_nvlink_keys(GKeyFile *kf, const SystemSpec *spec, const char *path, GError **error)
{
    static const char *const switch_only[] = {"boards", "switches", "gpu_switch_links",
                                              "trunk_links", "spine_links"};
    if (spec->nvswitch == NULL) {
        for (size_t i = 0; i < G_N_ELEMENTS(switch_only); i++) {
            if (g_key_file_has_key(kf, "nvlink", switch_only[i], NULL)) {
                return hw_keys_fail(
                    error, path, "nvlink", switch_only[i],
                    "given without a switch; expected a switch key naming the NVSwitch "
                    "model, or no %s",
                    switch_only[i]);
            }
        }
        if (spec->pairs == NULL) {
            return hw_keys_fail(
                error, path, "nvlink", "link",
                "neither pairs nor a switch use it; expected pairs, a switch or both");
        }
        return true;
    }
    if (spec->n_switches == 0) {
        return hw_keys_fail(
            error, path, "nvlink", "switches",
            "0 or missing while switch is given; expected NVSwitch chips per board, such as 4");
    }
    if (spec->gpu_switch_links == NULL) {
        return hw_keys_fail(
            error, path, "nvlink", "gpu_switch_links",
            "missing while switch is given; expected one count per switch, such as 5,5,4,4");
    }
    if (spec->n_gpus % spec->n_boards != 0) {
        return hw_keys_fail(error, path, "nvlink", "boards",
                            "%" G_GUINT64_FORMAT " GPUs do not split evenly over %" G_GUINT64_FORMAT
                            " boards; expected a number of boards that divides gpus",
                            spec->n_gpus, spec->n_boards);
    }
    if (spec->n_trunk_links > 0 && spec->n_spine_links > 0)
        return hw_keys_fail(error, path, "nvlink", "spine_links",
                            "given with trunk_links; expected boards joined by trunks or by a "
                            "spine tier, not both");
    uint64_t joined = spec->n_trunk_links + spec->n_spine_links;
    if ((spec->n_boards > 1) != (joined > 0)) {
        const char *key = spec->n_spine_links > 0 ? "spine_links" : "trunk_links";
        return hw_keys_fail(error, path, "nvlink", key,
                            "%" G_GUINT64_FORMAT " with %" G_GUINT64_FORMAT
                            " boards; expected %s links exactly when there are 2 or more boards",
                            joined, spec->n_boards, spec->n_spine_links > 0 ? "spine" : "trunk");
    }
    return true;
}

/* "5,5,4,4": one count per switch of a board, each at least 1. */
static bool
parse_switch_links(HwSystem *system, const char *text, const char *path, GError **error)
{
    g_auto(GStrv) items = g_strsplit(text, ",", -1);
    guint n_items = g_strv_length(items);
    if (n_items != system->n_switches_per_board) {
        return hw_keys_fail(
            error, path, "nvlink", "gpu_switch_links",
            "'%s' has %u counts for %u switches; expected one count per switch, such as "
            "5,5,4,4 for 4 switches",
            text, n_items, system->n_switches_per_board);
    }
    system->gpu_switch_links = g_new0(uint32_t, n_items);
    for (guint s = 0; s < n_items; s++) {
        uint64_t n_links;
        if (!sim_units_parse_count(g_strstrip(items[s]), &n_links, error)) {
            g_prefix_error(error, "%s: [nvlink] gpu_switch_links: switch %u: ", path, s);
            return false;
        }
        if (n_links < 1 || n_links > MAX_LINKS) {
            return hw_keys_fail(error, path, "nvlink", "gpu_switch_links",
                                "switch %u: %" G_GUINT64_FORMAT
                                " is out of range: expected 1 to %d links "
                                "from each GPU",
                                s, n_links, MAX_LINKS);
        }
        system->gpu_switch_links[s] = (uint32_t)n_links;
    }
    return true;
}

/* One item of pairs: "A-B" or "A-BxN". */
static bool
parse_pair(const char *item, uint32_t n_gpus, HwGpuPair *pair, const char *path, GError **error)
{
    const char *p = item;
    uint64_t a, b, n_links = 1;
    bool ok = hw_keys_take_number(&p, &a) && *p++ == '-' && hw_keys_take_number(&p, &b);
    if (ok && *p == 'x') {
        p++;
        ok = hw_keys_take_number(&p, &n_links);
    }
    if (!ok || *p != '\0') {
        return hw_keys_fail(
            error, path, "nvlink", "pairs",
            "'%s' is malformed; expected A-B or A-BxN (GPUs A and B joined by N links), "
            "such as 0-3x2",
            item);
    }
    if (a >= n_gpus || b >= n_gpus) {
        return hw_keys_fail(error, path, "nvlink", "pairs",
                            "'%s' names GPU %" G_GUINT64_FORMAT "; expected GPU ids 0 to %u", item,
                            a >= n_gpus ? a : b, n_gpus - 1);
    }
    if (a == b) {
        return hw_keys_fail(
            error, path, "nvlink", "pairs",
            "'%s' joins GPU %" G_GUINT64_FORMAT " to itself; expected two different GPUs", item, a);
    }
    if (n_links < 1 || n_links > MAX_LINKS) {
        return hw_keys_fail(error, path, "nvlink", "pairs",
                            "'%s' has %" G_GUINT64_FORMAT " links; expected 1 to %d", item, n_links,
                            MAX_LINKS);
    }
    *pair = (HwGpuPair){
        .a = (uint32_t)MIN(a, b), .b = (uint32_t)MAX(a, b), .n_links = (uint32_t)n_links};
    return true;
}

static int
compare_pairs(const void *x, const void *y)
{
    const HwGpuPair *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* Items separated by commas and/or blanks; each pair at most once. Adds
 * each pair's links to n_direct of both its GPUs. */
static bool
parse_pairs(HwSystem *system, const char *text, uint64_t *n_direct, const char *path,
            GError **error)
{
    g_auto(GStrv) items = g_strsplit_set(text, ", \t", -1);
    g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(HwGpuPair));
    g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (char **item = items; *item; item++) {
        if (**item == '\0')
            continue;
        HwGpuPair pair;
        if (!parse_pair(*item, system->n_gpus, &pair, path, error))
            return false;
        gpointer key = GUINT_TO_POINTER(pair.a * MAX_GPUS + pair.b + 1);
        if (!g_hash_table_add(seen, key)) {
            return hw_keys_fail(
                error, path, "nvlink", "pairs",
                "'%s' repeats the pair %u-%u; expected each pair once (write %u-%ux2 for "
                "two links)",
                *item, pair.a, pair.b, pair.a, pair.b);
        }
        n_direct[pair.a] += pair.n_links;
        n_direct[pair.b] += pair.n_links;
        g_array_append_val(pairs, pair);
    }
    if (pairs->len == 0)
        return hw_keys_fail(error, path, "nvlink", "pairs",
                            "empty; expected pairs such as 0-1, 0-3x2 (a system without "
                            "NVLink has no [nvlink] group)");
    g_array_sort(pairs, compare_pairs);
    system->n_pairs = pairs->len;
    system->pairs = (HwGpuPair *)(void *)g_array_free(g_steal_pointer(&pairs), FALSE);
    return true;
}

/* Every GPU's direct and switch links fit its NVLinks; a switch system
 * uses all of them. */
static bool
check_gpu_links(const HwSystem *system, const SystemSpec *spec, const uint64_t *n_direct,
                const char *path, GError **error)
{
    uint64_t n_to_switches = 0;
    for (uint32_t s = 0; s < system->n_switches_per_board; s++)
        n_to_switches += system->gpu_switch_links[s];
    uint64_t n_nvlinks = system->gpu->n_nvlinks;
    const char *key = system->nvswitch ? "gpu_switch_links" : "pairs";
    for (uint32_t g = 0; g < system->n_gpus; g++) {
        uint64_t n_used = n_direct[g] + n_to_switches;
        if (n_used > n_nvlinks || (system->nvswitch && n_used < n_nvlinks)) {
            return hw_keys_fail(error, path, "nvlink", key,
                                "GPU %u uses %" G_GUINT64_FORMAT " NVLinks (%" G_GUINT64_FORMAT
                                " to peers, %" G_GUINT64_FORMAT
                                " to switches); expected %s %" G_GUINT64_FORMAT
                                ", the NVLinks of the GPU %s",
                                g, n_used, n_direct[g], n_to_switches,
                                n_used > n_nvlinks ? "at most" : "all", n_nvlinks, spec->gpu);
        }
    }
    return true;
}

/* Switch s of a board takes a link bundle from each GPU of its board and
 * trunks to switch s of every other board, or its links up to the spine. */
static bool
check_switch_ports(const HwSystem *system, const SystemSpec *spec, const char *path, GError **error)
{
    uint64_t n_board_gpus = system->n_gpus / system->n_boards;
    uint64_t n_trunk_ports =
        (uint64_t)system->n_trunk_links * (system->n_boards - 1) + system->n_spine_links;
    for (uint32_t s = 0; s < system->n_switches_per_board; s++) {
        uint64_t n_used = n_board_gpus * system->gpu_switch_links[s] + n_trunk_ports;
        if (n_used > system->nvswitch->n_ports) {
            return hw_keys_fail(error, path, "nvlink", "gpu_switch_links",
                                "switch %u of each board needs %" G_GUINT64_FORMAT
                                " ports (%" G_GUINT64_FORMAT " GPUs x %u links + %" G_GUINT64_FORMAT
                                " %s ports); expected at most the %" G_GUINT64_FORMAT
                                " ports of %s",
                                s, n_used, n_board_gpus, system->gpu_switch_links[s], n_trunk_ports,
                                system->n_spine_links > 0 ? "spine" : "trunk",
                                system->nvswitch->n_ports, spec->nvswitch);
        }
    }
    return true;
}

static bool
build_nvlink(HwSystem *system, const SystemSpec *spec, const char *path, GError **error)
{
    g_autofree uint64_t *n_direct = g_new0(uint64_t, system->n_gpus);
    if (spec->pairs && !parse_pairs(system, spec->pairs, n_direct, path, error))
        return false;
    if (system->nvswitch) {
        system->n_boards = (uint32_t)spec->n_boards;
        system->n_board_gpus = system->n_gpus / system->n_boards;
        system->n_switches_per_board = (uint32_t)spec->n_switches;
        system->n_trunk_links = (uint32_t)spec->n_trunk_links;
        system->n_spine_links = (uint32_t)spec->n_spine_links;
        if (!parse_switch_links(system, spec->gpu_switch_links, path, error) ||
            !check_switch_ports(system, spec, path, error))
            return false;
    }
    return check_gpu_links(system, spec, n_direct, path, error);
}

static bool
check_hosts(const SystemSpec *spec, const char *path, GError **error)
{
    if (spec->n_gpus % spec->n_hosts != 0) {
        return hw_keys_fail(error, path, "host", "hosts",
                            "%" G_GUINT64_FORMAT " GPUs do not split evenly over %" G_GUINT64_FORMAT
                            " hosts; expected a number of hosts that divides gpus",
                            spec->n_gpus, spec->n_hosts);
    }
    uint64_t n_host_gpus = spec->n_gpus / spec->n_hosts;
    if (spec->gpus_per_pcie_switch != 0 && n_host_gpus % spec->gpus_per_pcie_switch != 0) {
        return hw_keys_fail(
            error, path, "host", "gpus_per_pcie_switch",
            "the %" G_GUINT64_FORMAT
            " GPUs of a host do not split evenly over switches of %" G_GUINT64_FORMAT
            "; expected a divisor of the GPUs per host, or 0",
            n_host_gpus, spec->gpus_per_pcie_switch);
    }
    return true;
}

static bool
check_network(HwSystem *system, const SystemSpec *spec, const char *path, GError **error)
{
    if (spec->n_nics % spec->n_hosts != 0) {
        return hw_keys_fail(error, path, "network", "nics",
                            "%" G_GUINT64_FORMAT " NICs do not split evenly over %" G_GUINT64_FORMAT
                            " hosts; expected a multiple of hosts",
                            spec->n_nics, spec->n_hosts);
    }
    if (spec->n_nodes > 1 && spec->fabric_switch == NULL) {
        return hw_keys_fail(error, path, "network", "nodes",
                            "%" G_GUINT64_FORMAT
                            " nodes without a fabric switch; expected a fabric_switch "
                            "joining them, or 1 node",
                            spec->n_nodes);
    }
    system->n_nics = (uint32_t)spec->n_nics;
    system->n_nic_ports_per_nic = (uint32_t)spec->n_ports_per_nic;
    uint64_t ports = spec->n_nics * spec->n_ports_per_nic;
    if (spec->n_net_devices > 0 && (spec->n_net_devices > ports || ports % spec->n_net_devices))
        return hw_keys_fail(error, path, "network", "net_devices",
                            "%" G_GUINT64_FORMAT " devices of %" G_GUINT64_FORMAT
                            " NIC ports; expected a divisor of the ports",
                            spec->n_net_devices, ports);
    system->n_net_devices = (uint32_t)(spec->n_net_devices > 0 ? spec->n_net_devices : ports);
    system->net_latency_ps = spec->net_latency_ps != UINT64_MAX
                                 ? spec->net_latency_ps
                                 : system->transport->plugin_latency_ps;
    system->n_nodes = (uint32_t)spec->n_nodes;
    system->rail_optimized = spec->rail_optimized;
    system->rail_only = spec->rail_only;
    if (spec->rail_only && !spec->rail_optimized)
        return hw_keys_fail(error, path, "network", "rail_only",
                            "yes needs rails: expected rail_optimized = yes or rail_only = no");
    if (spec->rail_only && spec->tiers > 2)
        return hw_keys_fail(error, path, "network", "rail_only",
                            "yes on a fabric of %" G_GUINT64_FORMAT " tiers; a rail-only fabric "
                            "is simulated as leaves and a spine a rail: expected tiers = 2",
                            spec->tiers);
    if (spec->rail_only && spec->collnet)
        return hw_keys_fail(error, path, "network", "collnet",
                            "yes on a rail-only fabric, whose rails no switch joins; expected "
                            "collnet = no or rail_only = no");
    system->oversubscription = (uint32_t)spec->oversubscription;
    system->fabric_tiers = (uint32_t)spec->tiers;
    system->nccl = spec->nccl;
    if (spec->collnet && !hw_system_sharp(system))
        return hw_keys_fail(error, path, "network", "collnet",
                            "yes, but %s has no SHARP NCCL can use; expected a fabric_switch with "
                            "sharp = %d or later (ib-qm8700, ib-qm9700, ib-q3400), or collnet = no",
                            spec->fabric_switch ? spec->fabric_switch
                                                : "the system (no fabric_switch)",
                            HW_SWITCH_COLLNET_SHARP);
    if (spec->collnet && spec->tiers > 2)
        return hw_keys_fail(error, path, "network", "collnet",
                            "yes on a fabric of %" G_GUINT64_FORMAT " tiers; CollNet is simulated "
                            "on two (leaf and spine): expected tiers = 2 or collnet = no",
                            spec->tiers);
    system->collnet = spec->collnet;
    return true;
}

/* [system] status's word as the enum; false for another word. */
static bool
parse_status(const char *text, HwSystemStatus *out)
{
    static const char *const words[] = {"product", "announced", "what-if"};
    for (size_t i = 0; i < G_N_ELEMENTS(words); i++)
        if (strcmp(text, words[i]) == 0) {
            *out = (HwSystemStatus)i;
            return true;
        }
    return false;
}

/* The fields that are copied from the file as they are. */
static void
fill_plain(HwSystem *system, const SystemSpec *spec, const char *path)
{
    g_autofree char *base = g_path_get_basename(path);
    system->id = g_str_has_suffix(base, ".ini") ? g_strndup(base, strlen(base) - strlen(".ini"))
                                                : g_strdup(base);
    system->name = g_strdup(spec->name);
    system->n_gpus = (uint32_t)spec->n_gpus;
    system->n_boards = 1;
    system->n_board_gpus = system->n_gpus;
    system->n_hosts = (uint32_t)spec->n_hosts;
    system->n_cpus_per_host = (uint32_t)spec->n_cpus;
    system->gpus_per_pcie_switch = (uint32_t)spec->gpus_per_pcie_switch;
    system->copy_overhead_ps = spec->copy_overhead_ps;
    system->n_nodes = 1;
    system->ids = (HwSystemIds){
        .gpu = g_strdup(spec->gpu),
        .nvlink = g_strdup(spec->nvlink),
        .nvswitch = g_strdup(spec->nvswitch),
        .gpu_host_link = g_strdup(spec->gpu_link),
        .pcie = g_strdup(spec->pcie),
        .cpu_link = g_strdup(spec->cpu_link),
        .nic = g_strdup(spec->nic),
        .fabric_switch = g_strdup(spec->fabric_switch),
    };
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(SystemSpec, spec_clear)

static HwSystem *
system_load(const char *path, const char *data, gsize length, const char *models_dir,
            GError **error)
{
    g_return_val_if_fail(path != NULL && models_dir != NULL, NULL);
    g_autoptr(GKeyFile) kf = hw_keys_open(path, "a model file", NULL, data, length, error);
    if (kf == NULL || !hw_system_merge_base(kf, path, models_dir, error))
        return NULL;
    g_auto(SystemSpec) spec = {0};
    if (!read_spec(kf, path, &spec, error) || !check_hosts(&spec, path, error) ||
        (spec.nvlink && !check_nvlink_keys(kf, &spec, path, error)))
        return NULL;
    g_autoptr(HwSystem) system = g_new0(HwSystem, 1);
    fill_plain(system, &spec, path);
    if (spec.status != NULL && !parse_status(spec.status, &system->status)) {
        hw_keys_fail(error, path, "system", "status",
                     "'%s' is not one of: product, announced, what-if", spec.status);
        return NULL;
    }
    system->gpu = load_part(path, "system", "gpu", models_dir, PART_GPU, spec.gpu, error);
    if (system->gpu == NULL)
        return NULL;
    if (g_key_file_has_group(kf, "loopback")) {
        system->loopback = hw_loopback_load(kf, path, error);
        return system->loopback != NULL ? g_steal_pointer(&system) : NULL;
    }
    if (spec.nvlink && (!load_nvlink_parts(system, &spec, path, models_dir, error) ||
                        !build_nvlink(system, &spec, path, error)))
        return NULL;
    if (!load_host_parts(system, &spec, path, models_dir, error))
        return NULL;
    if (spec.nic && (!load_network_parts(system, &spec, path, models_dir, error) ||
                     !check_network(system, &spec, path, error)))
        return NULL;
    /* What the system's own runs measured, over its parts' figures. */
    system->nvlink_efficiency = spec.nvlink_efficiency;
    system->nic_efficiency = spec.nic_efficiency;
    if (spec.kernel_setup_ps != UINT64_MAX)
        system->runtime->kernel_setup_ps = spec.kernel_setup_ps;
    if (spec.nic_latency_ps != UINT64_MAX && system->nic != NULL)
        system->nic->latency_ps = spec.nic_latency_ps;
    return g_steal_pointer(&system);
}

HwSystem *
hw_system_load(const char *path, const char *models_dir, GError **error)
{
    return system_load(path, NULL, 0, models_dir, error);
}

HwSystem *
hw_system_load_data(const char *data, gsize length, const char *path, const char *models_dir,
                    GError **error)
{
    g_return_val_if_fail(data != NULL, NULL);
    return system_load(path, data, length, models_dir, error);
}

HwSystem *
hw_system_load_by_id(const char *id, const char *models_dir, GError **error)
{
    g_return_val_if_fail(id != NULL && models_dir != NULL, NULL);
    g_autofree char *path = hw_models_find(models_dir, "system", "system", id, error);
    if (path == NULL)
        return NULL;
    return hw_system_load(path, models_dir, error);
}

const char *
hw_system_status_text(const HwSystem *system)
{
    switch (system->status) {
    case HW_SYSTEM_ANNOUNCED:
        return "announced, not measured: its figures are a vendor's announcements";
    case HW_SYSTEM_WHAT_IF:
        return "a what-if, not a product: a wiring nobody sells";
    default:
        return NULL;
    }
}

uint32_t
hw_system_nvswitch_chips(const HwSystem *system)
{
    if (system->nvswitch == NULL)
        return 0;
    uint64_t ports = MAX(system->nvswitch->n_ports, 1);
    uint64_t per_plane = ((uint64_t)system->n_boards * system->n_spine_links + ports - 1) / ports;
    return system->n_switches_per_board * (uint32_t)(system->n_boards + per_plane);
}

bool
hw_system_sharp(const HwSystem *system)
{
    return system->fabric_switch != NULL &&
           system->fabric_switch->sharp_version >= HW_SWITCH_COLLNET_SHARP;
}

void
hw_system_partition(HwSystem *system, uint32_t n_hosts)
{
    g_return_if_fail(n_hosts >= 1 && n_hosts <= system->n_hosts);
    uint32_t n_gpus = system->n_gpus / system->n_hosts * n_hosts;
    if (system->n_board_gpus > 0)
        system->n_boards = (n_gpus + system->n_board_gpus - 1) / system->n_board_gpus;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < system->n_pairs; i++)
        if (system->pairs[i].b < n_gpus)
            system->pairs[kept++] = system->pairs[i];
    system->n_pairs = kept;
    system->n_nics = system->n_nics / system->n_hosts * n_hosts;
    system->n_net_devices = system->n_net_devices / system->n_hosts * n_hosts;
    system->n_gpus = n_gpus;
    system->n_hosts = n_hosts;
}

uint32_t
hw_system_pair_links(const HwSystem *system, uint32_t a, uint32_t b)
{
    uint32_t lo = MIN(a, b), hi = MAX(a, b);
    for (uint32_t i = 0; i < system->n_pairs; i++)
        if (system->pairs[i].a == lo && system->pairs[i].b == hi)
            return system->pairs[i].n_links;
    return 0;
}
