/* SPDX-License-Identifier: Apache-2.0 */
/* The flow engine's constructor, called by net_new. */
#pragma once

#include "net/net.h"

NetModel *net_flow_new(SimEngine *engine, const TopoGraph *graph, const TopoRouter *router,
                       const NetOptions *options);
