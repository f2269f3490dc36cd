/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers every subcommand shares: option parsing and error lines.
 *
 * Errors are one line on stderr, "nvlsim CMD: what was wrong", so scripts
 * and people can both read them.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "core/core-units.h"
#include "hw/hw-gpu-list.h"

void
cli_print_error(const char *command, const GError *error)
{
    fprintf(stderr, "nvlsim%s%s: %s\n", command ? " " : "", command ? command : "", error->message);
}

int
cli_simulation_status(const GError *error)
{
    return g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOMEM) ? CLI_EXIT_BAD_INPUT
                                                                    : CLI_EXIT_USAGE;
}

GOptionContext *
cli_usage_context(const CliUsage *usage, void *options)
{
    GOptionContext *context = g_option_context_new(usage->args);
    g_option_context_set_summary(context, usage->summary);
    if (usage->description != NULL)
        g_option_context_set_description(context, usage->description);
    if (usage->entries == NULL)
        return context;
    g_return_val_if_fail(options != NULL, context);
    size_t n = 0;
    while (usage->entries[n].long_name != NULL)
        n++;
    /* GOption copies the entries it is given: a bound copy lives only
     * until it is added. */
    g_autofree GOptionEntry *bound = g_new0(GOptionEntry, n + 1);
    for (size_t i = 0; i < n; i++) {
        bound[i] = usage->entries[i];
        bound[i].arg_data =
            G_STRUCT_MEMBER_P(options, GPOINTER_TO_SIZE(usage->entries[i].arg_data));
    }
    g_option_context_add_main_entries(context, bound, NULL);
    return context;
}

bool
cli_parse_options(GOptionContext *context, const char *command, int *argc, char ***argv)
{
    g_autoptr(GError) error = NULL;
    if (g_option_context_parse(context, argc, argv, &error))
        return true;
    if (error->domain == G_CONVERT_ERROR) {
        /* GOption's message names no argument: find the one it could not
         * convert from the locale's character set. */
        const char *charset = NULL;
        g_get_charset(&charset);
        for (int i = 1; i < *argc; i++) {
            g_autofree char *text = g_locale_to_utf8((*argv)[i], -1, NULL, NULL, NULL);
            if (text == NULL) {
                g_autofree char *shown = g_strescape((*argv)[i], NULL);
                fprintf(stderr, "nvlsim%s%s: '%s': not text in the locale's character set (%s)\n",
                        command ? " " : "", command ? command : "", shown, charset);
                return false;
            }
        }
    }
    cli_print_error(command, error);
    return false;
}

/* The entry named by the option word arg ("-X..." or "--name[=...]"), or
 * NULL. */
static const GOptionEntry *
find_entry(const GOptionEntry *entries, const char *arg)
{
    bool is_long = arg[1] == '-';
    size_t len = is_long ? strcspn(arg + 2, "=") : 0;
    for (const GOptionEntry *e = entries; e->long_name != NULL; e++) {
        if (is_long ? strlen(e->long_name) == len && strncmp(arg + 2, e->long_name, len) == 0
                    : e->short_name != 0 && e->short_name == arg[1])
            return e;
    }
    return NULL;
}

char **
cli_split_attached(const GOptionEntry *entries, int *argc, char **argv, GPtrArray *owned)
{
    GPtrArray *out = g_ptr_array_new();
    bool literal = false;
    for (int i = 0; i < *argc; i++) {
        const char *arg = argv[i];
        const GOptionEntry *e = NULL;
        if (i > 0 && !literal && arg[0] == '-' && arg[1] != '\0') {
            literal = strcmp(arg, "--") == 0;
            e = literal ? NULL : find_entry(entries, arg);
            if (e != NULL && e->arg == G_OPTION_ARG_NONE)
                e = NULL;
        }
        bool attached = e != NULL && arg[1] != '-' && arg[2] != '\0';
        g_ptr_array_add(out, g_strndup(arg, attached ? 2 : strlen(arg)));
        if (attached)
            g_ptr_array_add(out, g_strdup(arg + 2));
        /* A value given apart ("-b 1M", "--csv -x.csv") is copied as it is. */
        else if (e != NULL && strchr(arg, '=') == NULL && i + 1 < *argc)
            g_ptr_array_add(out, g_strdup(argv[++i]));
    }
    *argc = (int)out->len;
    for (guint i = 0; i < out->len; i++)
        g_ptr_array_add(owned, out->pdata[i]);
    g_ptr_array_add(out, NULL);
    char **result = (char **)g_ptr_array_free(out, false);
    g_ptr_array_add(owned, result);
    return result;
}

bool
cli_bad_option(GError **error, const char *option, const char *text, const char *expect)
{
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s: '%s': expected %s", option,
                text, expect);
    return false;
}

bool
cli_check_algo(CollAlgo algo, const CollComm *comm, GError **error)
{
    /* ncclPatEnable (tuning.cc:220): PAT only with one GPU per node. */
    if (algo != COLL_ALGO_PAT || comm->ppn == 1)
        return true;
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--algo pat: NCCL runs PAT with one GPU per node, not %u: expected "
                "--gpus-per-node 1, or --algo auto or ring",
                comm->ppn);
    return false;
}

/* Whether a place's field is given: an option named, even empty; a
 * column not blank. */
static bool
place_given(const CliPlaceInput *in, TopoPlaceField f)
{
    return in->text[f] != NULL && (in->options || *in->text[f] != '\0');
}

/* A whole number of at least 1 from a place's text (0 when silent). */
static bool
place_count(const CliPlaceInput *in, TopoPlaceField f, uint32_t *out, const char **bad_name,
            GError **error)
{
    const char *text = in->text[f];
    uint64_t v;
    *out = 0;
    if (!place_given(in, f))
        return true;
    if (sim_units_parse_count(text, &v, NULL) && v >= 1 && v <= G_MAXUINT32) {
        *out = (uint32_t)v;
        return true;
    }
    *bad_name = in->name[f];
    if (in->options)
        return cli_bad_option(error, in->name[f], text, "a whole number from 1");
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "'%s': expected a whole number "
                "from 1",
                text);
    return false;
}

/* The hosts of each NVLink domain from a list such as "18,14" or
 * "18+14" (*n of them in *hosts), or false when the text is no list. */
static bool
place_domain_list(const CliPlaceInput *in, uint32_t **hosts, uint32_t *n, const char **bad_name,
                  GError **error)
{
    const char *text = in->text[TOPO_PLACE_DOMAINS];
    if (!place_given(in, TOPO_PLACE_DOMAINS) ||
        !topo_place_parse_domain_hosts(text, G_MAXUINT16, hosts, n))
        return false;
    if (*hosts != NULL)
        return true;
    *bad_name = in->name[TOPO_PLACE_DOMAINS];
    const char *want = "a count of NVLink domains, or the hosts of each as whole numbers "
                       "from 1 (such as 18,14)";
    if (in->options)
        cli_bad_option(error, in->name[TOPO_PLACE_DOMAINS], text, want);
    else
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "'%s': expected %s", text,
                    want);
    return true;
}

bool
cli_place(const HwSystem *system, const CliPlaceInput *in, TopoPlace *out, const char **bad_name,
          GError **error)
{
    TopoPlaceAsk ask = {.n_gpus = in->n_gpus};
    g_autofree uint32_t *devices = NULL;
    g_autofree uint32_t *domain_hosts = NULL;
    const char *list = in->text[TOPO_PLACE_DEVICES];
    *out = (TopoPlace){0};
    if (!place_count(in, TOPO_PLACE_HOSTS, &ask.n_hosts, bad_name, error) ||
        !place_count(in, TOPO_PLACE_GPUS_PER_HOST, &ask.gpus_per_host, bad_name, error))
        return false;
    if (place_domain_list(in, &domain_hosts, &ask.n_domains, bad_name, error)) {
        if (domain_hosts == NULL)
            return false;
        ask.domain_hosts = domain_hosts;
    } else if (!place_count(in, TOPO_PLACE_DOMAINS, &ask.n_domains, bad_name, error)) {
        return false;
    }
    if (place_given(in, TOPO_PLACE_DEVICES)) {
        if (!hw_gpu_list_parse(system, list, &devices, &ask.n_devices, error)) {
            *bad_name = in->name[TOPO_PLACE_DEVICES];
            if (in->options)
                g_prefix_error(error, "--%s: ", in->name[TOPO_PLACE_DEVICES]);
            return false;
        }
        ask.devices = devices;
    }
    TopoPlaceField bad;
    if (topo_place(system, &ask, out, &bad, error)) {
        if (out->n_gpus <= CLI_MAX_GPUS)
            return true;
        bad = ask.n_hosts != 0 ? TOPO_PLACE_HOSTS : TOPO_PLACE_DOMAINS;
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%u hosts of %u GPUs are %u GPUs: expected at most %u in all", out->n_hosts,
                    out->gpus_per_host, out->n_gpus, CLI_MAX_GPUS);
        topo_place_clear(out);
    }
    *bad_name = in->name[bad];
    if (in->options && in->text[bad] != NULL && *in->text[bad] != '\0')
        g_prefix_error(error, "--%s: '%s': ", in->name[bad], in->text[bad]);
    else if (in->options)
        g_prefix_error(error, "--%s: ", in->name[bad]);
    return false;
}

CollComm *
cli_place_comm(const TopoWorld *world, const TopoPlace *place, GError **error)
{
    return coll_comm_new_local(world->system, world->graph, world->router, place->local,
                               place->per_domain, place->n_domains, place->domain_ranks, error);
}

bool
cli_parse_harness(const char *harness, const char *launch_mode, bool cuda_graph, CollHarness *out,
                  GError **error)
{
    *out = COLL_HARNESS_DEFAULT;
    out->cuda_graph = cuda_graph;
    if (harness && !coll_harness_kind_parse(harness, &out->kind))
        return cli_bad_option(error, "harness", harness, "nccl-tests or blocking");
    if (launch_mode && !coll_launch_mode_parse(launch_mode, &out->mode))
        return cli_bad_option(error, "launch-mode", launch_mode, "mpi or threads");
    return true;
}

bool
cli_collnet(HwSystem *system, bool collnet, CollAlgo algo, uint32_t n_nodes, GError **error)
{
    bool named = algo == COLL_ALGO_COLLNET_DIRECT || algo == COLL_ALGO_COLLNET_CHAIN;
    if (!collnet && !named)
        return true;
    const char *option = collnet ? "--collnet" : "--algo";
    const char *value = collnet ? "" : coll_algo_name(algo);
    const HwSwitch *sw = system->fabric_switch;
    if (system->fabric_tiers > 2) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s%s%s: CollNet is simulated on fabrics of two tiers, and %s's has %u; "
                    "expected --algo ring, tree, nvls or nvls_tree",
                    option, *value ? " " : "", value, system->id, system->fabric_tiers);
        return false;
    }
    if (!hw_system_sharp(system)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s%s%s: %s's fabric %s%s%s has no SHARP NCCL's CollNet can use; expected a "
                    "system whose fabric switch has SHARPv2 or later (ib-qm8700, ib-qm9700, "
                    "ib-q3400), or --algo ring, tree, nvls or nvls_tree",
                    option, *value ? " " : "", value, system->id, sw ? "switch " : "",
                    sw ? system->ids.fabric_switch : "(none)",
                    sw && sw->sharp_version > 0 ? " (SHARPv1 only)" : "");
        return false;
    }
    if (n_nodes < 2) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s%s%s: CollNet reduces across nodes and this run has one; expected --gpus "
                    "of two nodes or more (%u or more on %s)",
                    option, *value ? " " : "", value, 2 * system->n_gpus, system->id);
        return false;
    }
    system->collnet = true;
    return true;
}

bool
cli_parse_size(const char *option, const char *text, uint64_t *out, GError **error)
{
    /* nccl-tests' own form: a number with K, M, G or T, powers of 1024. */
    static const char suffixes[] = "KMGT";
    size_t len = strlen(text);
    const char *at = len > 1 ? strchr(suffixes, text[len - 1]) : NULL;
    if (at != NULL && text[len - 1] != '\0') {
        g_autofree char *digits = g_strndup(text, len - 1);
        uint64_t n;
        unsigned shift = 10 * (unsigned)(at - suffixes + 1);
        if (sim_units_parse_count(digits, &n, NULL) && n <= (UINT64_MAX >> shift)) {
            *out = n << shift;
            return true;
        }
    }
    if (sim_units_parse_count(text, out, NULL) || sim_units_parse_size_bytes(text, out, error))
        return true;
    g_prefix_error(error, "--%s: ", option);
    return false;
}

char *
cli_nodes_text(const HwSystem *system, uint32_t n_hosts, uint32_t n_domains)
{
    GString *text = g_string_new(NULL);
    g_string_printf(text, "%u node%s", n_hosts, n_hosts == 1 ? "" : "s");
    if (system->n_hosts > 1)
        g_string_append_printf(text, " in %u NVLink domain%s of %u", n_domains,
                               n_domains == 1 ? "" : "s", system->n_hosts);
    return g_string_free(text, false);
}

/* A count of ranks or hosts for --option (NULL: not given, 0). */
static bool
parse_hint_count(const char *command, const char *option, const char *text, uint32_t *out)
{
    guint64 n = 0;
    if (text != NULL && !g_ascii_string_to_unsigned(text, 10, 1, CLI_MAX_GPUS, &n, NULL)) {
        fprintf(stderr, "nvlsim %s: --%s: '%s': expected a whole number from 1 to %u\n", command,
                option, text, CLI_MAX_GPUS);
        return false;
    }
    *out = (uint32_t)n;
    return true;
}

bool
cli_parse_log_hints(const char *command, const char *system, const char *gpus, const char *nodes,
                    const char *collective, const char *nccl_env, JudgeLogHints *out)
{
    *out = (JudgeLogHints){.system = system, .collective = collective, .nccl_env = nccl_env};
    g_autoptr(GError) error = NULL;
    HwNcclEnv env = {0};
    if (nccl_env != NULL && !hw_nccl_env_parse(nccl_env, &env, &error)) {
        fprintf(stderr, "nvlsim %s: --nccl-env: %s\n", command, error->message);
        return false;
    }
    CollOp op;
    if (!parse_hint_count(command, "gpus", gpus, &out->n_gpus) ||
        !parse_hint_count(command, "nodes", nodes, &out->n_nodes))
        return false;
    if (collective != NULL && !judge_log_collective(collective, &op)) {
        fprintf(stderr,
                "nvlsim %s: --collective: '%s': expected all_reduce, all_gather, "
                "reduce_scatter, broadcast, reduce, alltoall or sendrecv (or all_reduce_perf "
                "...)\n",
                command, collective);
        return false;
    }
    return true;
}

JudgeLog *
cli_log_open(const char *command, const char *where, const char *path, const JudgeLogHints *hints,
             uint32_t *n_bad)
{
    g_autoptr(GError) error = NULL;
    JudgeLog *log = judge_log_open(path, hints, &error);
    if (log == NULL) {
        fprintf(stderr, "nvlsim %s: %s%s\n", command, where, error->message);
        return NULL;
    }
    for (guint i = 0; i < log->problems->len; i++)
        fprintf(stderr, "nvlsim %s: %s\n", command, (const char *)log->problems->pdata[i]);
    *n_bad += log->problems->len;
    return log;
}
