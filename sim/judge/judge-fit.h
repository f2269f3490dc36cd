/* SPDX-License-Identifier: Apache-2.0 */
/* A cluster learned from its own runs: the figures that may differ between
 * one cluster and another of the same kind (how much of their rate its
 * NVLink links and NIC ports reach, its NICs' latency, the runtime's setup
 * of each kernel), fitted on nccl-tests logs against the system model the
 * cluster is an instance of, and written as a system file that derives
 * from it ([system] base). The fit takes every other size of each test
 * and judges the rest, so the error it reports on them is on sizes it was
 * not fitted on.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "judge/judge-log.h"
#include "net/net.h"

typedef enum JudgeFitParam {
    JUDGE_FIT_NVLINK_EFFICIENCY, /* [nvlink] efficiency, a share */
    JUDGE_FIT_KERNEL_SETUP,      /* [host] kernel_setup, us */
    JUDGE_FIT_NIC_EFFICIENCY,    /* [network] nic_efficiency, a share */
    JUDGE_FIT_NIC_LATENCY,       /* [network] nic_latency, us */
    JUDGE_FIT_N_PARAMS,
} JudgeFitParam;

typedef struct JudgeFit {
    char *base; /* the system id the cluster is an instance of */
    double base_value[JUDGE_FIT_N_PARAMS];
    double value[JUDGE_FIT_N_PARAMS]; /* fitted, or the base's where not */
    bool fitted[JUDGE_FIT_N_PARAMS];
    const char *why_not[JUDGE_FIT_N_PARAMS]; /* why one was not fitted */
    GString *sources[JUDGE_FIT_N_PARAMS];    /* "a.log:1 (2 hosts, 6 sizes)" each was fitted on */
    uint32_t n_fit, n_judged;                /* sizes fitted on, and judged */
    /* MAPE of the reported times, on the fitted and the judged sizes, with
     * the fitted figures and with the base's. */
    double fit_mape, judged_mape, base_fit_mape, base_judged_mape;
} JudgeFit;

/* The figure's key in a system file, its group, and its unit ("" a share). */
const char *judge_fit_param_key(JudgeFitParam p);
const char *judge_fit_param_group(JudgeFitParam p);
const char *judge_fit_param_unit(JudgeFitParam p);

/* Fits the cluster of the tests of logs (each test's own ranks, hosts and
 * harness) as an instance of system base, simulating each size at
 * fidelity. A figure no test can tell (the NIC's without a test across
 * NVLink domains) keeps the base's, with the reason. False and an error
 * when base cannot be loaded, a test cannot be placed on it, or there is
 * no size to fit. Clear fit with judge_fit_clear. */
bool judge_fit_cluster(const char *base, GPtrArray *logs, NetFidelity fidelity, JudgeFit *fit,
                       GError **error);
void judge_fit_clear(JudgeFit *fit);

/* The system file of the fit: [system] base and each fitted figure, with
 * its base value, the errors and the logs in comments. Newly allocated. */
char *judge_fit_system_text(const JudgeFit *fit, const char *name);
