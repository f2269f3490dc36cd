/* hw_models_dir: $NVLSIM_MODELS wins when set and not empty; otherwise the
 * source tree's models/ (this build runs in place), which holds the
 * shipped files. Check forks each test, so setenv stays inside it. */
#include "hw/hw-models.h"
#include "hw-suites.h"

START_TEST(environment_wins)
{
    g_setenv("NVLSIM_MODELS", "/somewhere/else/models", TRUE);
    ck_assert_str_eq(hw_models_dir(), "/somewhere/else/models");
}
END_TEST

static const char *const unset_values[] = {NULL, ""};

START_TEST(source_tree_without_environment)
{
    if (unset_values[_i] == NULL)
        g_unsetenv("NVLSIM_MODELS");
    else
        g_setenv("NVLSIM_MODELS", unset_values[_i], TRUE);
    ck_assert_str_eq(hw_models_dir(), NVLSIM_SRC_MODELS_DIR);
    g_autofree char *link = g_build_filename(hw_models_dir(), "link", "nvlink4.ini", NULL);
    ck_assert_msg(g_file_test(link, G_FILE_TEST_IS_REGULAR), "%s: missing", link);
}
END_TEST

Suite *
hw_models_suite(void)
{
    Suite *s = suite_create("hw-models");
    TCase *tc = tcase_create("models");
    tcase_add_test(tc, environment_wins);
    tcase_add_loop_test(tc, source_tree_without_environment, 0, G_N_ELEMENTS(unset_values));
    suite_add_tcase(s, tc);
    return s;
}
