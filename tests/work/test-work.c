/* Runs every sim/work suite; exits non-zero when a test fails. Also holds
 * the helpers the suites share: paths of the shipped models. */
#include <stdlib.h>

#include "work-suites.h"

char *
work_test_models_dir(void)
{
    const char *top = g_getenv("top_srcdir");
    return g_build_filename(top ? top : ".", "models", NULL);
}

char *
work_test_model_path(const char *file)
{
    g_autofree char *models = work_test_models_dir();
    return g_build_filename(models, "llm", file, NULL);
}

int
main(void)
{
    SRunner *runner = srunner_create(work_model_suite());
    srunner_run_all(runner, CK_NORMAL);
    int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
