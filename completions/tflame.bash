# bash completion for tflame(1)                           -*- shell-script -*-
#
# Works on its own (bash >= 4) and uses bash-completion's _filedir for file
# names when that is loaded. tests/docs.sh drives _tflame directly.

_tflame()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev="" opt="" prefix="" i
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# An option's value. With '=' in COMP_WORDBREAKS (the default), bash
	# splits "--sort=we" into "--sort" "=" "we", and "--sort=" into "--sort"
	# "=" with the cursor on "="; readline then replaces only the text after
	# the '='. Without it, the word is "--sort=we" and is replaced whole.
	if [[ $cur == = && $prev == --* ]]; then
		opt=$prev cur=""
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[COMP_CWORD - 2]} == --* ]]; then
		opt=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $cur == --*=* ]]; then
		opt=${cur%%=*} prefix="$opt=" cur=${cur#*=}
	else
		case $prev in
		-f | --format | --sort | -w | --width | --min-width | --event-filter | --threads | --search | \
			--view | --table-sort | --top | --focus | --hide | \
			--colors | --color-rule | --palette-map) opt=$prev ;;
		esac
	fi

	local values=""
	case $opt in
	-f | --format) values="auto folded perf" ;;
	--sort) values="name weight input" ;;
	--view) values="flame table sandwich" ;;
	--table-sort) values="self total name" ;;
	--colors) values="hot mem io wakeup chain java js perl python rust red green blue aqua yellow purple orange" ;;
	--color-rule) return 0 ;;  # REGEX=COLOR: nothing sensible to offer
	--palette-map)
		# A file name, also after "--palette-map=" (no prefix: readline
		# replaces only the text after the '=' when '=' breaks words).
		if [[ -n $prefix ]]; then
			local IFS=$'\n' f
			for f in $(compgen -f -- "$cur"); do COMPREPLY+=("$prefix$f"); done
		elif declare -F _filedir > /dev/null; then
			_filedir
		else
			local IFS=$'\n'
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return 0
		;;
	-w | --width | --min-width | --event-filter | --threads | --search | --top | --focus | --hide) return 0 ;;  # a number, a name, a regex: nothing to offer
	--*) [[ -n $prefix ]] && return 0 ;;  # --flag=...: not an option with a value
	esac
	if [[ -n $values ]]; then
		local v
		for v in $values; do
			[[ $v == "$cur"* ]] && COMPREPLY+=("$prefix$v")
		done
		return 0
	fi

	# After "--" every word is a file.
	local files_only=""
	for ((i = 1; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == -- ]] && files_only=1 && break
	done

	if [[ -z $files_only && $cur == -* ]]; then
		local o
		for o in --collapse --print --width --inverted --sort --min-width --search \
			--colors --color-rule --palette-map --format --pid --tid --kernel --jit --all --addrs --event-filter --threads \
			--view --table-sort --top --reverse --focus --hide --merge-recursion \
			--diff --negate --normalize \
			--help --version -c -p -w -i -f -h -V; do
			[[ $o == "$cur"* ]] && COMPREPLY+=("$o")
		done
		# "-" alone is a file name too: standard input.
		[[ $cur == - ]] && COMPREPLY+=("-")
		return 0
	fi

	if declare -F _filedir > /dev/null; then
		_filedir
	else
		compopt -o filenames 2> /dev/null
		local IFS=$'\n'
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
	return 0
} &&
	complete -F _tflame tflame

# ex: filetype=sh
