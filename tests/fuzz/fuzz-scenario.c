/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a scenario file (work_scenario_load_data) with overrides.
 * The input is the file's text, then optionally a line "--" and one
 * --set override (group.key=value) per line; models and systems come from
 * the shipped models. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "work/work-scenario.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    g_autofree char *text = fuzz_string(data, size);
    g_auto(GStrv) sets = NULL;
    char *cut = strstr(text, "\n--\n");
    if (cut != NULL) {
        *cut = '\0';
        sets = g_strsplit(cut + 4, "\n", 16);
    }
    GError *error = NULL;
    WorkScenario *s = work_scenario_load_data(text, "fuzz.ini", sets, NULL, &error);
    if ((s == NULL) != (error != NULL))
        abort();
    work_scenario_free(s);
    g_clear_error(&error);
    return 0;
}
