/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim: the command-line front end.
 *
 * main() finds the subcommand and hands it the rest of the command line;
 * each subcommand parses its own options (GOption, from its CliUsage),
 * runs, reports, and returns its exit status. After a usage error it adds
 * GNU's line pointing at the command's --help.
 */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/core-data.h"
#include "core/core-memory.h"
#include "core/core-output.h"
#include "hw/hw-models.h"

/* The commands, as nvlsim --help and the manual page list them. */
static const CliCommand commands[] = {
    {"run", "simulate a training step: time, throughput, memory, where the time goes", cli_run,
     &cli_run_usage},
    {"sweep", "simulate every point of a sweep over scenario keys, one CSV row each", cli_sweep,
     &cli_sweep_usage},
    {"compare", "one scenario on several generations, and an all-reduce sweep on each", cli_compare,
     &cli_compare_usage},
    {"explain", "the reasoning behind a collective's or a training step's numbers", cli_explain,
     &cli_explain_usage},
    {"coll", "an NCCL collective over a size sweep, as nccl-tests prints it", cli_coll,
     &cli_coll_usage},
    {"p2p", "peer-to-peer bandwidth and latency matrices, and a size sweep", cli_p2p,
     &cli_p2p_usage},
    {"validate", "replay measured rows and report the error per row and the MAPE", cli_validate,
     &cli_validate_usage},
    {"calibrate", "fit a model parameter from measurements (overheads, compute efficiency)",
     cli_calibrate, &cli_calibrate_usage},
    {"list", "list the shipped models: systems, gpus, links, switches, nics, models", cli_list,
     &cli_list_usage},
    {"bench-core", "measure the event engine with the hold model", cli_bench_core,
     &cli_bench_core_usage},
    {"bench-net", "measure the packet and flow network engines", cli_bench_net,
     &cli_bench_net_usage},
    {"bench-coll", "measure the collective layer on an 8 x H100 all_reduce sweep", cli_bench_coll,
     &cli_bench_coll_usage},
};

typedef struct MainOptions {
    gboolean version;
} MainOptions;

static const GOptionEntry main_entries[] = {
    {"version", 0, 0, G_OPTION_ARG_NONE, CLI_OPTION_AT(MainOptions, version),
     "Print the version and the data folder in use, and exit", NULL},
    G_OPTION_ENTRY_NULL,
};

/* Its description, the list of commands, is made from the table. */
static const CliUsage main_usage = {
    .args = "COMMAND [ARGS...]",
    .summary = "Simulates NVLink/NVSwitch GPU systems and the collectives and training that run "
               "on them.",
    .entries = main_entries,
};

static const CliCommand *
find_command(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static GOptionContext *
main_context(MainOptions *o)
{
    GOptionContext *context = cli_usage_context(&main_usage, o);
    GString *desc = g_string_new("Commands:\n");
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        g_string_append_printf(desc, "  %-14s %s\n", commands[i].name, commands[i].summary);
    g_string_append(desc, "  help [COMMAND] show help for nvlsim or for a command\n\n"
                          "Exit status: 0 success, 1 bad input (or validate above --max-mape),\n"
                          "2 usage error.");
    g_option_context_set_description(context, desc->str);
    g_string_free(desc, TRUE);
    /* Options after the command belong to the command. */
    g_option_context_set_strict_posix(context, TRUE);
    return context;
}

/* GNU's pointer after a usage error, to nvlsim's or command's --help. */
static int
usage_error(const char *command)
{
    fprintf(stderr, "Try 'nvlsim%s%s --help' for more information.\n", command ? " " : "",
            command ? command : "");
    return CLI_EXIT_USAGE;
}

/* Runs command; with check, first checks the models search path, so that
 * a folder of $NVLSIM_MODELS that is not there is one error, not one per
 * model looked up (a sweep's points, validate's rows), and
 * $NVLSIM_MEMORY_LIMIT, taking the memory limit before any simulation
 * grows (core-memory.h). */
static int
run_command(const CliCommand *command, int argc, char **argv, bool check)
{
    g_autofree char *prgname = g_strdup_printf("nvlsim %s", command->name);
    g_set_prgname(prgname);
    argv[0] = prgname;
    g_autoptr(GError) error = NULL;
    if (check && !(hw_models_check(hw_models_dir(), &error) && sim_memory_check_env(&error))) {
        cli_print_error(command->name, error);
        return CLI_EXIT_BAD_INPUT;
    }
    int status = command->run(argc, argv);
    return status == CLI_EXIT_USAGE ? usage_error(command->name) : status;
}

static int
unknown_command(const char *name)
{
    fprintf(stderr, "nvlsim: unknown command '%s'\n", name);
    return usage_error(NULL);
}

/* "nvlsim help [COMMAND]", and "nvlsim help --man": the manual page. */
static int
help(GOptionContext *context, int argc, char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "nvlsim help: expected at most one COMMAND, got %d arguments\n", argc - 1);
        return usage_error(NULL);
    }
    if (argc < 2) {
        g_autofree char *text = g_option_context_get_help(context, TRUE, NULL);
        fputs(text, stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--man") == 0) {
        cli_man_write(stdout, &main_usage, commands, G_N_ELEMENTS(commands));
        return CLI_EXIT_OK;
    }
    const CliCommand *command = find_command(argv[1]);
    if (command == NULL)
        return unknown_command(argv[1]);
    char *help_argv[] = {NULL, "--help", NULL};
    return run_command(command, 2, help_argv, false);
}

int
main(int argc, char **argv)
{
    /* The user's locale for messages and text encoding, but numbers always
     * with a decimal point: tables and CSV must read the same everywhere. */
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    g_set_prgname("nvlsim");
    /* An interrupt removes the outputs not yet finished (core-output.h). */
    sim_output_catch_signals();
    MainOptions o = {0};
    g_autoptr(GOptionContext) context = main_context(&o);
    if (!cli_parse_options(context, NULL, &argc, &argv))
        return usage_error(NULL);
    if (o.version) {
        printf("nvlsim %s\ndata: %s (%s)\n%s", PACKAGE_VERSION, sim_data_dir(),
               sim_data_origin_name(sim_data_origin()), cli_version_notice);
        return CLI_EXIT_OK;
    }
    if (argc < 2) {
        fprintf(stderr, "nvlsim: no command given; usage: nvlsim COMMAND [ARGS...]\n");
        return usage_error(NULL);
    }
    if (strcmp(argv[1], "help") == 0)
        return help(context, argc - 1, argv + 1);
    const CliCommand *command = find_command(argv[1]);
    if (command == NULL)
        return unknown_command(argv[1]);
    return run_command(command, argc - 1, argv + 1, true);
}
