/* SPDX-License-Identifier: Apache-2.0 */
/* Running a scenario, shared by nvlsim run and nvlsim validate. */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "cli/cli-fabric.h"
#include "work/work-run.h"
#include "work/work-scenario.h"
#include "work/work-stream.h"

/* Builds the scenario's step (its trace read, or generated), loads its
 * system with enough nodes for the step's GPUs (or scenario.nodes), and
 * replays it. fabric_out and stream_out, when not NULL, receive the fabric
 * and the stream (the caller frees them). */
bool cli_run_scenario(const WorkScenario *s, CliFabric **fabric_out, WorkRunResult *result,
                      WorkStream **stream_out, GError **error);

/* Prints what the scenario injects, when it does: "# faults: ..." and
 * "# stragglers: ..." lines (system names the bundles' link counts). */
void cli_run_print_injected(const WorkScenario *s, const HwSystem *system);
