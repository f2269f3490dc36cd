/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim calibrate cluster --system BASE LOG... -o MINE.ini: a cluster
 * learned from its nccl-tests logs (read as validate reads them), its
 * figures fitted on every other size and judged on the rest (judge-fit.h),
 * written as a system file deriving from BASE; --system MINE.ini then
 * runs everywhere a system name does.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/core-output.h"
#include "hw/hw-models.h"
#include "judge/judge-fit.h"

int
cli_calibrate_cluster(const char *base, const char *output, const JudgeLogHints *given,
                      NetFidelity fidelity, int n_logs, char **paths)
{
    if (base == NULL || output == NULL || n_logs == 0) {
        fprintf(stderr, "nvlsim calibrate: cluster needs --system BASE, -o FILE.ini and at least "
                        "one LOG\n");
        return CLI_EXIT_USAGE;
    }
    /* The logs ran on the cluster, not on BASE: their own headers name
     * their system and GPU (checked), BASE is only where the fit starts. */
    JudgeLogHints hints = *given;
    hints.system = NULL;
    g_autoptr(GPtrArray) logs = g_ptr_array_new_with_free_func((GDestroyNotify)judge_log_free);
    uint32_t n_bad = 0;
    for (int i = 0; i < n_logs; i++) {
        JudgeLog *log = cli_log_open("calibrate", "", paths[i], &hints, &n_bad);
        if (log == NULL)
            return CLI_EXIT_BAD_INPUT;
        g_ptr_array_add(logs, log);
    }
    if (n_bad > 0) {
        fprintf(stderr,
                "nvlsim calibrate: %u malformed parts in the logs: fix them or leave "
                "them out; no system file written\n",
                n_bad);
        return CLI_EXIT_BAD_INPUT;
    }
    g_autoptr(GError) error = NULL;
    JudgeFit fit;
    if (!judge_fit_cluster(base, logs, fidelity, &fit, &error)) {
        cli_print_error("calibrate", error);
        judge_fit_clear(&fit);
        return CLI_EXIT_BAD_INPUT;
    }
    printf("# nvlsim calibrate cluster: %s from %d log%s, %u sizes fitted on, %u held out\n", base,
           n_logs, n_logs == 1 ? "" : "s", fit.n_fit, fit.n_judged);
    printf("%-16s %-8s %12s %12s  %s\n", "figure", "group", base, "fitted", "fitted on");
    for (int p = 0; p < JUDGE_FIT_N_PARAMS; p++) {
        const char *unit = judge_fit_param_unit((JudgeFitParam)p);
        g_autofree char *b = g_strdup_printf("%.4g%s", fit.base_value[p], unit);
        g_autofree char *v =
            fit.fitted[p] ? g_strdup_printf("%.4g%s", fit.value[p], unit) : g_strdup("-");
        printf("%-16s %-8s %12s %12s  %s\n", judge_fit_param_key((JudgeFitParam)p),
               judge_fit_param_group((JudgeFitParam)p), b, v,
               fit.fitted[p] ? fit.sources[p]->str : fit.why_not[p]);
    }
    printf("# MAPE of the calls' times: fitted sizes %.2f%% (%s's figures: %.2f%%); held-out "
           "sizes %.2f%% (%.2f%%)\n",
           fit.fit_mape, base, fit.base_fit_mape, fit.judged_mape, fit.base_judged_mape);
    g_autoptr(HwSystem) system = hw_system_load_by_id(base, hw_models_dir(), NULL);
    g_autofree char *name =
        g_strdup_printf("%s, calibrated on %d log%s", system != NULL ? system->name : base, n_logs,
                        n_logs == 1 ? "" : "s");
    g_autofree char *text = judge_fit_system_text(&fit, name);
    judge_fit_clear(&fit);
    char *tmp = NULL;
    FILE *out = sim_output_open(output, &tmp, &error);
    if (out == NULL) {
        cli_print_error("calibrate", error);
        return CLI_EXIT_BAD_INPUT;
    }
    fputs(text, out);
    if (!sim_output_commit(out, tmp, output, &error)) {
        cli_print_error("calibrate", error);
        return CLI_EXIT_BAD_INPUT;
    }
    printf("# wrote %s: --system %s runs this cluster wherever a system name goes\n", output,
           output);
    return CLI_EXIT_OK;
}
