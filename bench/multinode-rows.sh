#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Writes a file of 1,008 multi-node collective rows in the schema of
# data/measurements/collectives.csv, for timing nvlsim validate on large
# runs (make bench): DGX H100, p5 and DGX A100 on 2 to 32 nodes (16 to 256
# GPUs), all_reduce, all_gather and reduce_scatter, 1 KiB to 8 GiB. The
# "measured" times are placeholders (1000 us): the errors mean nothing,
# the wall time and memory of replaying the rows are the figures.
# Usage: bench/multinode-rows.sh > rows.csv
set -eu
echo "system,nvlsim_system,num_gpus,nodes,collective,algorithm,protocol,dtype,bytes,time_us,busbw_gbps,in_place,source_note"
for system in dgx-h100 aws-p5-h100 dgx-a100; do
    for nodes in 2 4 8 16 32; do
        [ "$system" = dgx-a100 ] && [ "$nodes" -eq 32 ] && continue
        for op in all_reduce all_gather reduce_scatter; do
            bytes=1024
            while [ "$bytes" -le 8589934592 ]; do
                echo "synthetic,$system,$((8 * nodes)),$nodes,$op,,,float,$bytes,1000,,1,placeholder time"
                bytes=$((bytes * 2))
            done
        done
    done
done | awk -F, '{ n++; print } END { if (n != 1008) exit 1 }'
