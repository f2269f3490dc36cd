/* SPDX-License-Identifier: Apache-2.0 */
/* The nvlsim front end: subcommands, their exit statuses, shared helpers.
 *
 * Only this layer prints to the terminal or picks an exit status. Exit
 * statuses: 0 success, 1 bad input (the content of a file or data the
 * command was given), 2 usage error (unknown command or option, malformed
 * option value).
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "coll/coll-harness.h"
#include "coll/coll-run.h"
#include "judge/judge-log.h"
#include "hw/hw-system.h"
#include "net/net.h"
#include "topo/topo-place.h"
#include "topo/topo-world.h"

enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_BAD_INPUT = 1,
    CLI_EXIT_USAGE = 2,
};

/* What a command's --help and the manual page (cli-man.c) print, from
 * one place: the words after "[OPTION...]", the summary above the
 * options, the description below them, and the options. Each entry's
 * arg_data is the offset of its value in the command's options struct
 * (CLI_OPTION_AT), so that the table is constant and can be read without
 * one; cli_usage_context binds it. */
typedef struct CliUsage {
    const char *args;            /* NULL: none */
    const char *summary;         /* lines of at most 80 columns (cli-man.c) */
    const char *description;     /* the same; NULL: none */
    const GOptionEntry *entries; /* ending with G_OPTION_ENTRY_NULL; NULL: no options */
} CliUsage;

/* An entry's arg_data: where field lies in the options struct type. */
#define CLI_OPTION_AT(type, field) GSIZE_TO_POINTER(G_STRUCT_OFFSET(type, field))

/* A subcommand: argv[0] is "nvlsim NAME"; returns the exit status, and
 * CLI_EXIT_USAGE after printing what was wrong (main adds GNU's line
 * "Try 'nvlsim NAME --help' for more information."). */
typedef struct CliCommand {
    const char *name;
    const char *summary; /* one line, for nvlsim --help's list */
    int (*run)(int argc, char **argv);
    const CliUsage *usage;
} CliCommand;

/* A context that prints usage as --help, its entries' values bound to
 * the fields of options (the struct usage's offsets are into; may be
 * NULL when usage has no entries). The caller frees it. */
GOptionContext *cli_usage_context(const CliUsage *usage, void *options);

/* nvlsim --version's lines after the first ("nvlsim VERSION"): copyright,
 * licence and warranty, as the GNU coding standards lay them out. */
extern const char cli_version_notice[];

/* Writes the manual page nvlsim(1) in roff on out, from program (nvlsim's
 * own usage: its summary and options; its description is not used) and
 * the n commands' usages. The installed data folder is written as
 * @pkgdatadir@, which the build fills in (Makefile.am). */
void cli_man_write(FILE *out, const CliUsage *program, const CliCommand *commands, size_t n);

/* Parses a command's options; on error prints one line
 * "nvlsim CMD: message" to stderr and returns false. Handles --help. */
bool cli_parse_options(GOptionContext *context, const char *command, int *argc, char ***argv);

/* GOption reads a short option's value only from the next argument;
 * nccl-tests' getopt also takes it attached (-b1M, -dhalf). Returns
 * argv[0 .. *argc) with each "-Xvalue" whose X is the short name of one
 * of entries (G_OPTION_ENTRY_NULL-terminated) taking a value split into
 * "-X" "value", up to "--" (updating *argc). The returned vector and its
 * strings belong to owned (a g_free array), which must outlive them. */
char **cli_split_attached(const GOptionEntry *entries, int *argc, char **argv, GPtrArray *owned);

/* A size option: bytes as a plain number, nccl-tests' 8K / 128M / 8G
 * (powers of 1024), or with a unit (4MiB, 1GB). The error names --option. */
bool cli_parse_size(const char *option, const char *text, uint64_t *out, GError **error);

/* Sets a G_OPTION_ERROR_BAD_VALUE error "--OPTION: 'TEXT': expected
 * EXPECT" and returns false. */
bool cli_bad_option(GError **error, const char *option, const char *text, const char *expect);
/* Whether --algo algo can run on comm where the option alone decides:
 * PAT needs one GPU per node. False and a one-line error naming --algo. */
bool cli_check_algo(CollAlgo algo, const CollComm *comm, GError **error);

/* Where a run's n_gpus GPUs (0: as the hosts or domains say) sit, from
 * the texts of its options or a row's columns (NULL or "" where silent),
 * indexed by TopoPlaceField: hosts ("nodes"), GPUs a host
 * ("gpus-per-node"), NVLink domains ("domains") and a host's devices
 * ("gpu-list", "0,3,4,7"); name[] holds the option or column names. False
 * and an error "--NAME: 'TEXT': what was wrong" (options) or "what was
 * wrong" with *bad_name (columns). */
/* The most ranks coll, explain and validate simulate (--gpus, num_gpus). */
#define CLI_MAX_GPUS 65536

typedef struct CliPlaceInput {
    uint32_t n_gpus;
    const char *text[TOPO_PLACE_DEVICES + 1];
    const char *name[TOPO_PLACE_DEVICES + 1];
    bool options;
} CliPlaceInput;
bool cli_place(const HwSystem *system, const CliPlaceInput *in, TopoPlace *out,
               const char **bad_name, GError **error);
/* The communicator of a placement on a world built for its domains. */
CollComm *cli_place_comm(const TopoWorld *world, const TopoPlace *place, GError **error);

/* The benchmark a collective's time is reported as (coll-harness.h):
 * --harness, --launch-mode (NULL: nccl-tests' defaults) and --cuda-graph,
 * as coll and explain coll take them; false and an error naming the
 * option. */
bool cli_parse_harness(const char *harness, const char *launch_mode, bool cuda_graph,
                       CollHarness *out, GError **error);

/* "N node(s)" for n_hosts hosts of system (nodes as schedulers count
 * them), with the n_domains NVLink domains they are in where a domain
 * has more than one host: "16 nodes in 1 NVLink domain of 18"; newly
 * allocated. */
char *cli_nodes_text(const HwSystem *system, uint32_t n_hosts, uint32_t n_domains);

/* CollNet (in-network reduction on SHARP switches) for one run of coll or
 * explain coll: on with --collnet (collnet true) or an --algo naming it
 * (as NCCL_ALGO=CollNetDirect runs with NCCL_COLLNET_ENABLE=1), or when
 * the system model sets [network] collnet. Sets system->collnet (before
 * the communicator is made); false and a usage error naming the option
 * and what is possible when the fabric has no SHARPv2 or later, or when
 * the run has one node (NCCL's CollNet needs two). */
bool cli_collnet(HwSystem *system, bool collnet, CollAlgo algo, uint32_t n_nodes, GError **error);

/* What --system, --gpus, --nodes, --collective and --nccl-env say of an
 * nccl-tests log (each NULL: not given) into out; false after printing
 * "nvlsim CMD: --OPTION: 'TEXT': expected ..." for one that is not a count,
 * a collective or NCCL variables nvlsim models. */
bool cli_parse_log_hints(const char *command, const char *system, const char *gpus,
                         const char *nodes, const char *collective, const char *nccl_env,
                         JudgeLogHints *out);

/* The nccl-tests log at path (judge_log_open), each malformed part printed
 * as "nvlsim CMD: PATH:LINE: what" and counted in *n_bad; NULL after
 * printing "nvlsim CMD: WHERE: why" (where: "--measured: " or ""). */
JudgeLog *cli_log_open(const char *command, const char *where, const char *path,
                       const JudgeLogHints *hints, uint32_t *n_bad);

/* Prints "nvlsim CMD: message" for an error to stderr. */
void cli_print_error(const char *command, const GError *error);

/* The exit status of a simulation that failed on options the user chose:
 * usage, but bad input where it outgrew the memory (core-memory.h), which
 * is the input's size, not a wrong option. */
int cli_simulation_status(const GError *error);

/* The commands, and the usage each prints for --help (in its own file). */
extern const CliUsage cli_bench_core_usage, cli_bench_coll_usage, cli_bench_net_usage,
    cli_calibrate_usage, cli_coll_usage, cli_compare_usage, cli_explain_usage, cli_list_usage,
    cli_p2p_usage, cli_run_usage, cli_sweep_usage, cli_validate_usage;
int cli_bench_core(int argc, char **argv);
int cli_bench_coll(int argc, char **argv);
int cli_bench_net(int argc, char **argv);
int cli_calibrate(int argc, char **argv);
/* calibrate loopback (cli-calibrate-loopback.c): fits system_id's
 * [loopback] costs on the rows of fit_ranks ranks (0: the fewest in the
 * file) of path; returns the exit status. */
int cli_calibrate_loopback(const char *path, const char *system_id, uint32_t fit_ranks,
                           NetFidelity fidelity);
/* calibrate cluster (cli-calibrate-cluster.c): the cluster of the n_logs
 * nccl-tests logs at paths (hints for what a log lacks; hints->system is
 * not used), fitted as an instance of system base and written to output;
 * returns the exit status. */
int cli_calibrate_cluster(const char *base, const char *output, const JudgeLogHints *hints,
                          NetFidelity fidelity, int n_logs, char **paths);
int cli_coll(int argc, char **argv);
int cli_compare(int argc, char **argv);
/* compare --measured (cli-compare-measured.c): each test of the nccl-tests
 * log at path beside the same calls simulated on the log's system or each
 * of systems ("a,b"; NULL: the log's), the curves written to csv and
 * plotted to plot (each NULL: not); returns the exit status. */
int cli_compare_measured(const char *path, const char *systems, const char *csv, const char *plot);
int cli_explain(int argc, char **argv);
int cli_p2p(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_sweep(int argc, char **argv);
int cli_validate(int argc, char **argv);
int cli_list(int argc, char **argv);
