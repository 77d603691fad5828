# fish completion for tflame(1)
# Arguments are profile files (fish offers file names by default); options
# that take a value are exclusive (-x): they offer their values, not files.

complete -c tflame -s c -l collapse -d 'Write the merged stacks as folded text and exit'
complete -c tflame -s p -l print -d 'Draw the flame graph as plain text and exit'
complete -c tflame -s w -l width -x -d 'Columns for --print'
complete -c tflame -s i -l inverted -d 'Icicle graph: root at the top'
complete -c tflame -l sort -x -a 'name\t"by name (default)" weight\t"heaviest first" input\t"input order"' -d 'Sibling order'
complete -c tflame -l min-width -x -d 'Hide frames narrower than N columns'
complete -c tflame -s f -l format -x -a 'auto\t"detect (default)" folded\t"folded stacks" perf\t"perf script output"' -d 'Input format'
complete -c tflame -l pid -d 'perf: root frames are comm-PID'
complete -c tflame -l tid -d 'perf: root frames are comm-PID/TID'
complete -c tflame -l kernel -d 'perf: annotate kernel frames with _[k]'
complete -c tflame -l jit -d 'perf: annotate JIT frames with _[j]'
complete -c tflame -l all -d 'perf: --kernel and --jit'
complete -c tflame -l addrs -d 'perf: show addresses of unresolved frames'
complete -c tflame -l event-filter -x -d 'perf: keep only this event'
complete -c tflame -l threads -x -d 'parse big files on N threads'
complete -c tflame -l config -r -F -d 'Read option defaults from this file'
complete -c tflame -l no-config -d 'Read no config file'
complete -c tflame -s h -l help -d 'Show the help and exit'
complete -c tflame -s V -l version -d 'Show the version and exit'
