#!/bin/sh
# Regenerates the expected folded outputs from the profiles with Go's own
# pprof (`go tool pprof -raw`) and raw2folded.py: nothing of tflame is used.
# Run from this directory; needs go (Debian: golang-go) and python3.
set -eu
x() { # PROFILE INDEX OUT [LABELKEY]
	go tool pprof -raw "$1" | python3 raw2folded.py "$2" ${4:+"$4"} > "$3"
}
x cpu.pb.gz 1 cpu.folded                    # default: the last type, cpu/nanoseconds
x cpu.pb.gz 0 cpu.samples.folded            # --sample-type=samples
x cpu.pb.gz 1 cpu.worker.folded worker      # --label-root=worker (string label)
x heap.pb.gz 3 heap.folded                  # default: the last type, inuse_space
x heap.pb.gz 1 heap.alloc_space.folded      # --sample-type=alloc_space
x heap.pb.gz 2 heap.inuse_objects.bytes.folded bytes  # --sample-type=inuse_objects --label-root=bytes (numeric)
x allocs.pb.gz 1 allocs.folded              # default_sample_type: alloc_space
