/* SPDX-License-Identifier: Apache-2.0 */
/* Ranges of the scenario's key tables ([scenario], [layout], [batch],
 * [precision], [faults], [stragglers]): each key of a kind with a range is
 * set with --set on a small valid scenario (Llama 3 8B on a DGX H100) to
 * values at, inside and outside each bound, and exactly the documented
 * range must load (tests/topo/range-walk.h; test-topo walks the models'
 * tables). The [faults] rates are checked against the system by the run,
 * not the scenario loader: here a share near 0 loads. */
#include <string.h>

#include "../topo/range-walk.h"
#include "work-suites.h"
#include "work-test-support.h"
#include "work/work-scenario.h"

#define BASE                                                                                       \
    "[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\n[layout]\ntp = 8\n[batch]\n"                \
    "global_batch = 8\n"

/* The scenario with --set GROUP.KEY=VALUE, and the list a rate needs. */
static bool
load_scenario(const HwKeyTable *t, const HwKey *key, const char *value, GError **error)
{
    g_autofree char *set = g_strdup_printf("%s.%s=%s", t->group, key->name, value);
    const char *companion = strcmp(t->group, "stragglers") == 0        ? "stragglers.ranks=1"
                            : strcmp(key->name, "slow_rate") == 0      ? "faults.slow_links=0:1"
                            : strcmp(key->name, "crc_error_rate") == 0 ? "faults.crc_links=0:1"
                            : strcmp(key->name, "moe_balance") == 0 ? "scenario.model=mixtral-8x7b"
                                                                    : NULL;
    char *sets[] = {set, (char *)companion, NULL};
    g_autofree char *models = work_test_models_dir();
    g_autoptr(WorkScenario) s = work_scenario_load_data(BASE, "s.ini", sets, models, error);
    return s != NULL;
}

static unsigned
n_tables(void)
{
    unsigned n = 0;
    while (work_scenario_key_tables[n] != NULL)
        n++;
    return n;
}

START_TEST(scenario_table_ranges)
{
    const HwKeyTable *t = work_scenario_key_tables[_i];
    bool ranged = false;
    for (size_t k = 0; k < t->n_keys; k++)
        ranged = ranged || hw_key_range(t->keys[k].kind) != NULL;
    unsigned n = range_walk(t, load_scenario);
    ck_assert_msg(n > 0 || !ranged, "[%s]: no value tried", t->group);
}
END_TEST

/* compute_efficiency and compute_rate are shares the walk reaches. */
START_TEST(scenario_rate_keys_are_shares)
{
    const char *const names[] = {"compute_efficiency", "compute_rate", "slow_rate"};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        bool found = false;
        for (const HwKeyTable *const *t = work_scenario_key_tables; *t != NULL; t++)
            for (size_t k = 0; k < (*t)->n_keys; k++)
                found = found || (strcmp((*t)->keys[k].name, names[i]) == 0 &&
                                  (*t)->keys[k].kind == HW_KEY_FRACTION);
        ck_assert_msg(found, "%s: not a share of a scenario table", names[i]);
    }
}
END_TEST

Suite *
work_ranges_suite(void)
{
    Suite *s = suite_create("work-ranges");
    TCase *tc = tcase_create("ranges");
    tcase_add_loop_test(tc, scenario_table_ranges, 0, (int)n_tables());
    tcase_add_test(tc, scenario_rate_keys_are_shares);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
