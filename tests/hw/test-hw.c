/* SPDX-License-Identifier: Apache-2.0 */
/* Runs every sim/hw suite; exits non-zero when a test fails. Also holds the
 * helpers the suites share: paths of the shipped models, temporary model
 * folders, and text patching for malformed-file tables. */
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-suites.h"

const char *const hw_test_valid_link = "[link]\nname = Test link\nkind = nvlink\ngeneration = 4\n"
                                       "lanes = 2\nlane_rate = 100Gbit/s\nbandwidth = 25GB/s\n"
                                       "header = 16B\nsm_payload = 128B\nce_payload = 256B\n"
                                       "latency = 150ns\nrx_buffer = 16KiB\ncredit = 16B\n"
                                       "replay_buffer = 16KiB\nreplay_latency = 400ns\n"
                                       "packet_error_rate = 0\n";

static const char *const valid_net_link =
    "[link]\nname = Test network\nkind = network\nlanes = 4\nlane_rate = 106.25Gbit/s\n"
    "bandwidth = 400Gbit/s\nheader = 26B\nsm_payload = 4096B\nce_payload = 4096B\n"
    "latency = 100ns\nrx_buffer = 64KiB\ncredit = 64B\nreplay_buffer = 0B\n"
    "replay_latency = 10us\n";

char *
hw_test_models_dir(void)
{
    const char *top = g_getenv("top_srcdir");
    return g_build_filename(top ? top : ".", "models", NULL);
}

char *
hw_test_model_path(const char *kind, const char *file)
{
    g_autofree char *models = hw_test_models_dir();
    return g_build_filename(models, kind, file, NULL);
}

unsigned
hw_test_count_models(const char *kind)
{
    g_autofree char *models = hw_test_models_dir();
    g_autofree char *dir_path = g_build_filename(models, kind, NULL);
    g_autoptr(GDir) dir = g_dir_open(dir_path, 0, NULL);
    ck_assert_msg(dir != NULL, "%s: cannot open", dir_path);
    unsigned n = 0;
    for (const char *name; (name = g_dir_read_name(dir)) != NULL;)
        n += g_str_has_suffix(name, ".ini");
    return n;
}

char *
hw_test_patch(const char *case_name, const char *text, const char *from, const char *to)
{
    if (from == NULL)
        return g_strdup(to);
    const char *at = strstr(text, from);
    ck_assert_msg(at != NULL, "%s: fixture text '%s' not found", case_name, from);
    return g_strdup_printf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

char *
hw_test_write(const char *dir, const char *sub, const char *name, const char *text)
{
    g_autofree char *folder = g_build_filename(dir, sub, NULL);
    ck_assert_int_eq(g_mkdir_with_parents(folder, 0700), 0);
    char *path = g_build_filename(folder, name, NULL);
    ck_assert(g_file_set_contents(path, text, -1, NULL));
    return path;
}

char *
hw_test_make_models_dir(void)
{
    char *dir = g_dir_make_tmp(NULL, NULL);
    ck_assert(dir != NULL);
    g_autofree char *a = hw_test_write(dir, "link", "testlink.ini", hw_test_valid_link);
    g_autofree char *b = hw_test_write(dir, "link", "testnet.ini", valid_net_link);
    g_autofree char *broken = g_strconcat(hw_test_valid_link, "bogus = 1\n", NULL);
    g_autofree char *c = hw_test_write(dir, "link", "broken.ini", broken);
    return dir;
}

void
hw_test_remove_dir(const char *dir)
{
    static const char *const subs[] = {"link", "switch", "nic"};
    for (size_t i = 0; i < G_N_ELEMENTS(subs); i++) {
        g_autofree char *folder = g_build_filename(dir, subs[i], NULL);
        g_autoptr(GDir) d = g_dir_open(folder, 0, NULL);
        for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;) {
            g_autofree char *path = g_build_filename(folder, name, NULL);
            g_unlink(path);
        }
        g_rmdir(folder);
    }
    g_rmdir(dir);
}

void
hw_test_assert_message(const char *case_name, const char *message, const char *path,
                       const char *part)
{
    ck_assert_msg(g_str_has_prefix(message, path) && strstr(message, part) != NULL,
                  "%s: message '%s' lacks '%s' (or does not start with '%s')", case_name, message,
                  part, path);
}

int
main(void)
{
    SRunner *runner = srunner_create(hw_gpu_suite());
    srunner_add_suite(runner, hw_gpu_list_suite());
    srunner_add_suite(runner, hw_link_suite());
    srunner_add_suite(runner, hw_models_suite());
    srunner_add_suite(runner, hw_nic_suite());
    srunner_add_suite(runner, hw_switch_suite());
    srunner_add_suite(runner, hw_system_suite());
    srunner_run_all(runner, CK_NORMAL);
    int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
