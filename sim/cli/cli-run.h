/* SPDX-License-Identifier: Apache-2.0 */
/* What nvlsim run prints of a scenario beside its figures (work_run_scenario,
 * work-run.h, simulates it), shared by the commands that run scenarios. */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "topo/topo-world.h"
#include "work/work-run.h"
#include "work/work-scenario.h"
#include "work/work-stream.h"

/* Prints what the scenario injects, when it does: "# faults: ..." and
 * "# stragglers: ..." lines (system names the bundles' link counts). */
void cli_run_print_injected(const WorkScenario *s, const HwSystem *system);
