/* The network interface: picking an engine and the small helpers both
 * engines share. */
#include "net/net.h"

#include <string.h>

#include "net/net-flow.h"
#include "net/net-packet.h"

NetModel *
net_new(NetFidelity fidelity, SimEngine *engine, const TopoGraph *graph, const TopoRouter *router,
        const NetOptions *options)
{
    static const NetOptions defaults = {.seed = 1};
    if (options == NULL)
        options = &defaults;
    switch (fidelity) {
    case NET_FIDELITY_PACKET:
        return net_packet_new(engine, graph, router, options);
    case NET_FIDELITY_FLOW:
        return net_flow_new(engine, graph, router, options);
    }
    g_return_val_if_reached(NULL);
}

void
net_free(NetModel *net)
{
    if (net != NULL)
        net->ops->free(net);
}

bool
net_fidelity_parse(const char *text, NetFidelity *fidelity)
{
    if (strcmp(text, "packet") == 0)
        *fidelity = NET_FIDELITY_PACKET;
    else if (strcmp(text, "flow") == 0)
        *fidelity = NET_FIDELITY_FLOW;
    else
        return false;
    return true;
}

const char *
net_fidelity_name(NetFidelity fidelity)
{
    return fidelity == NET_FIDELITY_PACKET ? "packet" : "flow";
}

uint64_t
net_header_bytes(const HwLink *link, NetIssuer issuer)
{
    return issuer == NET_ISSUER_SM && link->sm_header_bytes > 0 ? link->sm_header_bytes
                                                                : link->header_bytes;
}

uint64_t
net_payload_bytes(const HwLink *link, NetIssuer issuer)
{
    return issuer == NET_ISSUER_SM ? link->sm_payload_bytes : link->ce_payload_bytes;
}
