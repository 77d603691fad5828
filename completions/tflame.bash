# bash completion for tflame(1)                           -*- shell-script -*-
#
# Works on its own (bash >= 4) and uses bash-completion's _filedir for file
# names when that is loaded. tests/docs.sh drives _tflame directly and checks
# both tables below against `tflame --help` and `tflame --list-options`.

# Every option, one word each; a trailing '=' marks one that takes a value.
_tflame_options='
	--collapse --print --svg --width= --inverted --sort= --min-width= --search=
	--colors= --color-rule= --palette-map=
	--reverse --focus= --hide= --merge-recursion --view= --top= --time= --only-pid= --only-tid= --only-comm= --table-sort=
	--diff --negate --normalize
	--format= --pid --tid --kernel --jit --all --addrs --event-filter= --symfs= --sample-type= --unit= --label-root= --profile= --threads=
	--script= --config= --no-config --help --version
	-c -p -w= -i -f= -h -V'

# _tflame_values OPTION: the candidates for OPTION's value: a fixed set of
# words, "@file" for a file name, nothing for a number, a regex or a name.
_tflame_values()
{
	case $1 in
	-f | --format) echo 'auto folded perf perf-data pprof cpuprofile speedscope' ;;
	--sort) echo 'name weight input' ;;
	--view) echo 'flame table sandwich heatmap chart' ;;
	--table-sort) echo 'self total name' ;;
	--colors) echo 'hot mem io wakeup chain java js perl python rust red green blue aqua yellow purple orange' ;;
	--palette-map | --config | --symfs | --script) echo '@file' ;;
	esac
}

# _tflame_files PREFIX: file names for $cur; PREFIX ("--config=") is put
# back in front when the word was not split at '='.
_tflame_files()
{
	local IFS=$'\n' f
	if [[ -n $1 ]]; then
		for f in $(compgen -f -- "$cur"); do COMPREPLY+=("$1$f"); done
	elif declare -F _filedir > /dev/null; then
		_filedir
	else
		compopt -o filenames 2> /dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

_tflame()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev="" opt="" prefix="" i o
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
		for o in $_tflame_options; do
			[[ $o == "$prev=" ]] && opt=$prev && break
		done
	fi

	if [[ -n $opt ]]; then
		local values v
		values=$(_tflame_values "$opt")
		if [[ $values == @file ]]; then
			_tflame_files "$prefix"
			return 0
		fi
		for v in $values; do
			[[ $v == "$cur"* ]] && COMPREPLY+=("$prefix$v")
		done
		return 0        # a number, a free name, or a flag given "=...": nothing
	fi

	# tflame record [OPTION]... [--] COMMAND: its own options, then commands.
	if ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[1]} == record ]]; then
		if [[ $cur == -* ]]; then
			for o in -F --freq= -g --dwarf -e --event= -p --pid= -a --all-cpus -o --output= -h --help; do
				o=${o%=}
				[[ $o == "$cur"* ]] && COMPREPLY+=("$o")
			done
		else
			COMPREPLY=($(compgen -c -- "$cur"))
		fi
		return 0
	fi
	if ((COMP_CWORD == 1)) && [[ record == "$cur"* && -n $cur ]]; then
		COMPREPLY+=("record")
	fi

	# After "--" every word is a file.
	local files_only=""
	for ((i = 1; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == -- ]] && files_only=1 && break
	done

	if [[ -z $files_only && $cur == -* ]]; then
		for o in $_tflame_options; do
			o=${o%=}
			[[ $o == "$cur"* ]] && COMPREPLY+=("$o")
		done
		# "-" alone is a file name too: standard input.
		[[ $cur == - ]] && COMPREPLY+=("-")
		return 0
	fi

	_tflame_files ""
	return 0
} &&
	complete -F _tflame tflame

# ex: filetype=sh
