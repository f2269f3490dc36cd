/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim list KIND: the models of one kind on the models search path (the
 * user's folders, then the shipped models), one line each, sorted by id,
 * with the figures people compare (in GB/s, Gb/s, TFLOP/s; transformer
 * models by shape and billions of parameters) and the folder each file
 * came from. nvlsim list keys: every key of every file kind, from the key
 * tables the loaders read, with its kind and the range they enforce.
 *
 * Every file of the kind is loaded and checked as a run would load it, so
 * the listing doubles as a check of the model files: a broken file is an
 * error (exit 1) naming the file, and nothing is printed.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/hw-models.h"
#include "hw/hw-system.h"
#include "work/work-model.h"
#include "work/work-scenario.h"

/* Formats the row of the model in file path (its id given), or NULL and an
 * error. */
typedef char *(*ListRowFunc)(const char *path, const char *id, const char *models_dir,
                             GError **error);

static double
gb_per_s(uint64_t bytes_per_s)
{
    return (double)bytes_per_s / 1e9;
}

static double
gbit_per_s(uint64_t bytes_per_s)
{
    return (double)bytes_per_s * 8 / 1e9;
}

static char *
system_row(const char *path, const char *id, const char *models_dir, GError **error)
{
    g_autoptr(HwSystem) s = hw_system_load(path, models_dir, error);
    if (s == NULL)
        return NULL;
    g_autofree char *nvlink =
        s->nvlink ? g_strdup_printf("gen %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT,
                                    s->nvlink->generation, s->gpu->n_nvlinks)
                  : g_strdup("-");
    g_autofree char *switches =
        s->nvswitch ? g_strdup_printf("%u x %s", hw_system_nvswitch_chips(s), s->ids.nvswitch)
                    : g_strdup(s->n_pairs ? "direct pairs" : "-");
    g_autofree char *nics =
        s->nic ? g_strdup_printf("%u x %g Gb/s %s", s->n_nics,
                                 gbit_per_s(s->nic->port_link->bytes_per_s), s->ids.transport)
               : g_strdup("-");
    static const char *const marks[] = {"", " (announced)", " (what-if)"};
    return g_strdup_printf("%-20s %4u %5u  %-15s %-11s %-16s %s%s", id, s->n_gpus,
                           MAX(s->n_hosts, 1), s->ids.gpu, nvlink, switches, nics,
                           marks[s->status]);
}

static char *
gpu_row(const char *path, const char *id, const char *models_dir, GError **error)
{
    (void)models_dir;
    g_autoptr(HwGpu) g = hw_gpu_load(path, error);
    if (g == NULL)
        return NULL;
    /* '-': no fp4 tensor cores (before Blackwell). */
    g_autofree char *fp4 = g->fp4_flops_per_s
                               ? g_strdup_printf("%.5g", (double)g->fp4_flops_per_s / 1e12)
                               : g_strdup("-");
    return g_strdup_printf(
        "%-16s %-22s %4" G_GUINT64_FORMAT "  %9.4g  %8s  %6.4g  %8.4g  %2" G_GUINT64_FORMAT
        " (gen %" G_GUINT64_FORMAT ")",
        id, g->name, g->n_sms, (double)g->fp16_flops_per_s / 1e12, fp4, (double)g->hbm_bytes / 1e9,
        (double)g->hbm_bytes_per_s / 1e12, g->n_nvlinks, g->nvlink_generation);
}

static char *
link_row(const char *path, const char *id, const char *models_dir, GError **error)
{
    (void)models_dir;
    g_autoptr(HwLink) l = hw_link_load(path, error);
    if (l == NULL)
        return NULL;
    /* Networks speak bits per second: show both for them. */
    g_autofree char *rate = l->kind == HW_LINK_NETWORK
                                ? g_strdup_printf("%g GB/s (%g Gb/s)", gb_per_s(l->bytes_per_s),
                                                  gbit_per_s(l->bytes_per_s))
                                : g_strdup_printf("%g GB/s", gb_per_s(l->bytes_per_s));
    return g_strdup_printf("%-16s %-8s %5" G_GUINT64_FORMAT "  %s", id, hw_link_kind_name(l->kind),
                           l->n_lanes, rate);
}

static char *
switch_row(const char *path, const char *id, const char *models_dir, GError **error)
{
    g_autoptr(HwSwitch) sw = hw_switch_load(path, models_dir, error);
    if (sw == NULL)
        return NULL;
    return g_strdup_printf("%-16s %-8s %5" G_GUINT64_FORMAT "  %9g  %7g  %s", id,
                           sw->kind == HW_SWITCH_NVSWITCH ? "nvswitch" : "network", sw->n_ports,
                           gb_per_s(sw->link->bytes_per_s), (double)sw->latency_ps / 1e3,
                           sw->link_model);
}

static char *
nic_row(const char *path, const char *id, const char *models_dir, GError **error)
{
    g_autoptr(HwNic) n = hw_nic_load(path, models_dir, error);
    if (n == NULL)
        return NULL;
    return g_strdup_printf("%-16s %-22s %6g  gen %" G_GUINT64_FORMAT " x%-3" G_GUINT64_FORMAT
                           "  %s",
                           id, n->name, gbit_per_s(n->port_link->bytes_per_s), n->pcie_generation,
                           n->pcie_lanes, n->port_link_model);
}

static char *
transport_row(const char *path, const char *id, const char *models_dir, GError **error)
{
    (void)models_dir;
    g_autoptr(HwTransport) t = hw_transport_load(path, error);
    if (t == NULL)
        return NULL;
    return g_strdup_printf("%-16s %-36s %9g  %9g", id, t->name, (double)t->step_latency_ps / 1e6,
                           (double)t->plugin_latency_ps / 1e6);
}

static char *
model_row(const char *path, const char *id, const char *models_dir, GError **error)
{
    (void)models_dir;
    g_autoptr(WorkModel) m = work_model_load(path, error);
    if (m == NULL)
        return NULL;
    g_autofree char *heads =
        g_strdup_printf("%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT, m->n_heads, m->n_kv_heads);
    g_autofree char *experts =
        m->n_experts ? g_strdup_printf("%" G_GUINT64_FORMAT " (top %" G_GUINT64_FORMAT ")",
                                       m->n_experts, m->top_k)
                     : g_strdup("-");
    return g_strdup_printf(
        "%-16s %-24s %6" G_GUINT64_FORMAT "  %6" G_GUINT64_FORMAT "  %-9s %9.2f  %s", id, m->name,
        m->n_layers, m->hidden_size, heads, (double)work_model_params(m) / 1e9, experts);
}

static const struct {
    const char *kind; /* the argument, and the folder under models/ */
    const char *dir;
    const char *header;
    int width; /* of a row before its "from" column */
    ListRowFunc row;
} list_kinds[] = {
    /* Headers line up with the row formats above. */
    {"systems", "system",
     "# system             GPUs hosts  GPU             NVLink      NVSwitch         NICs and "
     "transport",
     101, system_row},
    {"gpus", "gpu",
     "# gpu            name                    SMs  fp16 TF/s  fp4 TF/s  HBM GB  HBM TB/s  NVLinks",
     96, gpu_row},
    {"links", "link", "# link           kind     lanes  per direction", 54, link_row},
    {"switches", "switch", "# switch         kind     ports  port GB/s  lat. ns  port link", 63,
     switch_row},
    {"nics", "nic", "# nic            name                     Gb/s  PCIe        port link", 70,
     nic_row},
    {"transports", "transport",
     "# transport      name                                 step us  plugin us", 77, transport_row},
    {"models", "llm",
     "# model          name                     layers  hidden  heads/kv   params B  experts", 89,
     model_row},
};

/* Every row of one kind, each ending with the folder of the search path
 * its file came from, or NULL and the first error. */
static GPtrArray *
list_rows(size_t k, const char *models_dir, GError **error)
{
    g_autoptr(GPtrArray) ids = hw_models_ids(models_dir, list_kinds[k].dir, error);
    if (ids == NULL)
        return NULL;
    g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < ids->len; i++) {
        const char *id = g_ptr_array_index(ids, i);
        g_autofree char *path = hw_models_file(models_dir, list_kinds[k].dir, NULL, id, error);
        if (path == NULL)
            return NULL;
        g_autofree char *row = list_kinds[k].row(path, id, models_dir, error);
        if (row == NULL)
            return NULL;
        g_autofree char *kind_dir = g_path_get_dirname(path);
        g_autofree char *from = g_path_get_dirname(kind_dir);
        g_ptr_array_add(rows, g_strdup_printf("%-*s  %s", list_kinds[k].width, row, from));
    }
    return g_steal_pointer(&rows);
}

/* The word for a key's kind in the listing. */
static const char *
kind_word(HwKeyKind kind)
{
    switch (kind) {
    case HW_KEY_TIME_PS:
        return "time";
    case HW_KEY_SIZE_BYTES:
        return "size";
    case HW_KEY_BYTES_PER_S:
        return "bandwidth";
    case HW_KEY_FLOPS_PER_S:
        return "FLOP rate";
    case HW_KEY_COUNT:
        return "count";
    case HW_KEY_STRING:
        return "text";
    case HW_KEY_BOOL:
        return "yes/no";
    case HW_KEY_PROBABILITY:
        return "probability";
    case HW_KEY_FRACTION:
        return "share";
    }
    g_assert_not_reached();
    return "?";
}

static void
put_table(const HwKeyTable *t)
{
    printf("[%s] in %s\n", t->group, t->file);
    for (size_t i = 0; i < t->n_keys; i++) {
        const HwKey *key = &t->keys[i];
        g_autofree char *range = hw_key_range_text(key->kind);
        printf("  %-22s %-11s %s%s%s%s\n", key->name, kind_word(key->kind),
               key->required ? "required; " : "", range != NULL ? range : "",
               range != NULL ? "; " : "", key->help);
    }
}

/* Every key table the loaders read: hardware models, transformer models,
 * scenarios. */
static int
list_keys(void)
{
    printf("# [group] in FILE, then each key: name, kind, the range of its kind (refused "
           "outside it when the file is read; a loader may narrow it), meaning\n");
    for (const HwKeyTable *const *t = hw_model_key_tables; *t != NULL; t++)
        put_table(*t);
    put_table(&work_model_key_table);
    for (const HwKeyTable *const *t = work_scenario_key_tables; *t != NULL; t++)
        put_table(*t);
    return CLI_EXIT_OK;
}

const CliUsage cli_list_usage = {
    .args = "KIND",
    .summary = "Lists the models of one kind, one line each, sorted by id.\n"
               "KIND is one of: systems, gpus, links, switches, nics, transports, models; or\n"
               "keys: every key of every file kind with its kind and the range it must lie in.",
    .description =
        "Models are looked for in the folders of $NVLSIM_MODELS (separated by ':'), then in\n"
        "the shipped models: the source tree's models/ for the build tree's nvlsim, else\n"
        "the installed copy. Each row ends with the folder its file came from. Every file\n"
        "is loaded and checked: a broken file is an error (exit status 1) naming the file.\n"
        "A probability is of a failure, from 0 to below 1 (at 1 nothing gets through); a\n"
        "share is of a rate kept, above 0 (at 0 nothing finishes) and at most 1. A share\n"
        "or an error rate that would leave a link under 100MB/s, or a GPU's peak under\n"
        "1GFLOP/s, is refused too.",
};

int
cli_list(int argc, char **argv)
{
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_list_usage, NULL);
    if (!cli_parse_options(context, "list", &argc, &argv))
        return CLI_EXIT_USAGE;
    if (argc != 2) {
        fprintf(stderr,
                "nvlsim list: %s; expected one of: systems, gpus, links, switches, nics, "
                "transports, models, keys\n",
                argc < 2 ? "no kind given" : "more than one kind given");
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "keys") == 0)
        return list_keys();
    size_t k = 0;
    while (k < G_N_ELEMENTS(list_kinds) && strcmp(list_kinds[k].kind, argv[1]) != 0)
        k++;
    if (k == G_N_ELEMENTS(list_kinds)) {
        fprintf(stderr,
                "nvlsim list: unknown kind '%s'; expected one of: systems, gpus, links, switches, "
                "nics, transports, models, keys\n",
                argv[1]);
        return CLI_EXIT_USAGE;
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) rows = list_rows(k, hw_models_dir(), &error);
    if (rows == NULL) {
        cli_print_error("list", error);
        return CLI_EXIT_BAD_INPUT;
    }
    printf("%-*s  from\n", list_kinds[k].width, list_kinds[k].header);
    for (guint i = 0; i < rows->len; i++)
        puts(g_ptr_array_index(rows, i));
    return CLI_EXIT_OK;
}
