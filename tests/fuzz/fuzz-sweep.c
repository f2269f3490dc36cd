/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a sweep file (cli_sweep_load_data), read as if it were in
 * the shipped scenarios/ folder (where a relative base is found); then the
 * header, the first and last points' overrides, and the first point's
 * scenario loaded (not run). */
#include <stdlib.h>

#include "cli/cli-sweep.h"
#include "core/core-data.h"
#include "fuzz.h"
#include "work/work-scenario.h"

static void
check_point(const CliSweep *sweep, uint32_t index, bool load)
{
    g_auto(GStrv) sets = cli_sweep_point_sets(sweep, index);
    if (g_strv_length(sets) != sweep->axes->len)
        abort();
    if (!load)
        return;
    GError *error = NULL;
    WorkScenario *s =
        work_scenario_load_data(sweep->base_text, sweep->base_name, sets, NULL, &error);
    if ((s == NULL) != (error != NULL))
        abort();
    work_scenario_free(s);
    g_clear_error(&error);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    static char *path;
    if (path == NULL)
        path = sim_data_path("scenarios/fuzz-sweep.ini");
    GError *error = NULL;
    CliSweep *sweep = cli_sweep_load_data((const char *)data, size, path, &error);
    if ((sweep == NULL) != (error != NULL))
        abort();
    if (sweep != NULL) {
        if (sweep->n_points == 0 || sweep->n_points > CLI_SWEEP_MAX_POINTS)
            abort();
        g_free(cli_sweep_header(sweep));
        check_point(sweep, 0, true);
        check_point(sweep, sweep->n_points - 1, false);
    }
    cli_sweep_free(sweep);
    g_clear_error(&error);
    return 0;
}
