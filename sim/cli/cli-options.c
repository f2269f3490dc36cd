/* Helpers every subcommand shares: option parsing and error lines.
 *
 * Errors are one line on stderr, "nvlsim CMD: what was wrong", so scripts
 * and people can both read them.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "core/core-units.h"

void
cli_print_error(const char *command, const GError *error)
{
    fprintf(stderr, "nvlsim%s%s: %s\n", command ? " " : "", command ? command : "", error->message);
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

bool
cli_bad_option(GError **error, const char *option, const char *text, const char *expect)
{
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s: '%s': expected %s", option,
                text, expect);
    return false;
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
