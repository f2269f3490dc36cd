/* SPDX-License-Identifier: Apache-2.0 */
/* hw_models_dir: the folders of $NVLSIM_MODELS, then the shipped models,
 * which for this program (the build tree's) are the source tree's; a file
 * comes from the first folder that has it, ids from all of them once; a
 * folder of the path that is not there is an error naming it; a path
 * stands for an id where hw_models_find looks. Check forks each test, so
 * setenv stays inside it. */
#include <glib/gstdio.h>
#include <string.h>

#include "core/core-data.h"
#include "hw/hw-models.h"
#include "hw-suites.h"

START_TEST(environment_comes_first)
{
    g_setenv("NVLSIM_MODELS", "/somewhere/else:/and/more", TRUE);
    g_autofree char *source = g_canonicalize_filename(NVLSIM_SOURCE_DIR, NULL);
    g_autofree char *expect = g_strdup_printf("/somewhere/else:/and/more:%s/models", source);
    ck_assert_str_eq(hw_models_dir(), expect);
    g_auto(GStrv) folders = hw_models_folders("::/a::/b:");
    ck_assert_uint_eq(g_strv_length(folders), 2);
    ck_assert_str_eq(folders[0], "/a");
    ck_assert_str_eq(folders[1], "/b");
}
END_TEST

static const char *const unset_values[] = {NULL, ""};

START_TEST(source_tree_without_environment)
{
    if (unset_values[_i] == NULL)
        g_unsetenv("NVLSIM_MODELS");
    else
        g_setenv("NVLSIM_MODELS", unset_values[_i], TRUE);
    ck_assert_int_eq(sim_data_origin(), SIM_DATA_BUILD_TREE);
    g_autofree char *source = g_canonicalize_filename(NVLSIM_SOURCE_DIR, NULL);
    ck_assert_str_eq(sim_data_dir(), source);
    g_autofree char *expect = g_strdup_printf("%s/models", source);
    ck_assert_str_eq(hw_models_dir(), expect);
    g_autofree char *link = g_build_filename(hw_models_dir(), "link", "nvlink4.ini", NULL);
    ck_assert_msg(g_file_test(link, G_FILE_TEST_IS_REGULAR), "%s: missing", link);
}
END_TEST

/* A user's folder with link/nvlink4.ini (a replacement) and
 * link/testlink.ini (new) before the shipped models. */
START_TEST(first_folder_wins)
{
    g_autofree char *mine = hw_test_make_models_dir();
    g_autofree char *copy = hw_test_write(mine, "link", "nvlink4.ini", hw_test_valid_link);
    g_autofree char *shipped = hw_test_models_dir();
    g_autofree char *path = g_strjoin(":", mine, shipped, NULL);
    g_autoptr(GError) error = NULL;
    g_autofree char *nvlink4 = hw_models_file(path, "link", "link", "nvlink4", &error);
    ck_assert_str_eq(nvlink4, copy);
    g_autofree char *nvlink3 = hw_models_file(path, "link", "link", "nvlink3", &error);
    g_autofree char *shipped3 = hw_test_model_path("link", "nvlink3.ini");
    ck_assert_str_eq(nvlink3, shipped3);
    g_autoptr(GPtrArray) ids = hw_models_ids(path, "link", &error);
    ck_assert_uint_eq(ids->len, hw_test_count_models("link") + 3);
    guint n_nvlink4 = 0;
    for (guint i = 0; i < ids->len; i++) {
        n_nvlink4 += strcmp(ids->pdata[i], "nvlink4") == 0;
        if (i > 0)
            ck_assert_int_lt(strcmp(ids->pdata[i - 1], ids->pdata[i]), 0);
    }
    ck_assert_uint_eq(n_nvlink4, 1);
    /* A kind the user's folder lacks comes from the shipped models. */
    g_autoptr(GPtrArray) systems = hw_models_ids(path, "system", &error);
    ck_assert_uint_eq(systems->len, hw_test_count_models("system"));
    g_autofree char *none = hw_models_file(path, "link", "link", "nvlink9", &error);
    ck_assert(none == NULL);
    g_autofree char *part =
        g_strdup_printf("(link/nvlink9.ini does not exist in %s, %s)", mine, shipped);
    ck_assert_msg(strstr(error->message, part) != NULL, "%s", error->message);
    hw_test_remove_dir(mine);
}
END_TEST

START_TEST(missing_folder_is_named)
{
    g_autofree char *shipped = hw_test_models_dir();
    g_autofree char *path = g_strjoin(":", "/nonexistent/mine", shipped, NULL);
    g_setenv("NVLSIM_MODELS", "/nonexistent/mine", TRUE);
    g_autoptr(GError) error = NULL;
    g_autofree char *file = hw_models_file(path, "system", "system", "dgx-h100", &error);
    ck_assert(file == NULL);
    ck_assert_msg(
        g_str_has_prefix(error->message, "NVLSIM_MODELS: /nonexistent/mine: no such folder"), "%s",
        error->message);
    g_clear_error(&error);
    g_unsetenv("NVLSIM_MODELS");
    ck_assert(!hw_models_check("/nonexistent/models", &error));
    ck_assert_str_eq(error->message, "/nonexistent/models: no such folder of models");
    g_clear_error(&error);
    ck_assert(hw_models_ids(path, "gpu", &error) == NULL);
    ck_assert_msg(strstr(error->message, "/nonexistent/mine") != NULL, "%s", error->message);
}
END_TEST

/* hw_models_find: a ref with a '/' or ending in .ini is a file path. */
START_TEST(path_stands_for_an_id)
{
    g_autofree char *shipped = hw_test_models_dir();
    g_autofree char *h100 = hw_test_model_path("system", "dgx-h100.ini");
    g_autoptr(GError) error = NULL;
    g_autofree char *found = hw_models_find(shipped, "system", "system", h100, &error);
    ck_assert_str_eq(found, h100);
    g_autofree char *by_id = hw_models_find(shipped, "system", "system", "dgx-h100", &error);
    ck_assert_str_eq(by_id, h100);
    g_autofree char *none = hw_models_find(shipped, "system", "system", "my-box.ini", &error);
    ck_assert(none == NULL);
    ck_assert_str_eq(error->message,
                     "my-box.ini: no such system file; expected a system id or the path of a file");
    ck_assert(hw_models_ref_is_path("./x") && hw_models_ref_is_path("x.ini"));
    ck_assert(!hw_models_ref_is_path("dgx-h100"));
}
END_TEST

Suite *
hw_models_suite(void)
{
    Suite *s = suite_create("hw-models");
    TCase *tc = tcase_create("models");
    tcase_add_test(tc, environment_comes_first);
    tcase_add_loop_test(tc, source_tree_without_environment, 0, G_N_ELEMENTS(unset_values));
    tcase_add_test(tc, first_folder_wins);
    tcase_add_test(tc, missing_folder_is_named);
    tcase_add_test(tc, path_stands_for_an_id);
    suite_add_tcase(s, tc);
    return s;
}
