/* SPDX-License-Identifier: Apache-2.0 */
/* Fixture for the layering check: the engine must not know the network,
 * so this include is the violation check-layers.sh has to report.
 */
#include "core/core-engine.h"

#include "net/net-fine.h"
