/* Where the model files (models/{gpu,link,switch,nic,system}/) are found. */
#pragma once

/* The models directory: $NVLSIM_MODELS when set and not empty; else the
 * source tree's models/ when it exists (a build run in place); else the
 * installed $(pkgdatadir)/models. The string is owned by the environment or
 * the program: do not free it. */
const char *hw_models_dir(void);
