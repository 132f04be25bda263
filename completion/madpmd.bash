# SPDX-License-Identifier: BSD-3-Clause
# bash completion for madpmd and madpmd-run. Installed under both names:
# bash-completion loads completions/<command> the first time <command> is
# completed. Plain bash (compgen): works without the bash-completion
# package, and uses its _command_offset for madpmd-run's COMMAND if loaded.

# madpmd's options after "--" (pmd/launcher/madpmd.c); EAL's come before
_madpmd_opts='--topology --run-dir --capture --interactive --link --wire --nodes
	--switch-clients --client-ports --idle-polls --idle-sleep-us --no-intr --duration --lossy --replay
	--exit-after-replay --umad-mode --ib-dissector --help --version'
# madpmd-run's options (lib/umad/madpmd-run.sh)
_madpmd_run_opts='--node --device --net --run-dir --print-addr --help'

_madpmd_files()
{
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen "$1" -- "$2"))
}

_madpmd()
{
	local cur=${COMP_WORDS[COMP_CWORD]:-} prev=

	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	case $prev in
	--topology|--capture)
		_madpmd_files -f "$cur"; return ;;
	--run-dir)
		_madpmd_files -d "$cur"; return ;;
	--link)
		COMPREPLY=($(compgen -W 'ib roce' -- "$cur")); return ;;
	--ib-dissector)
		COMPREPLY=($(compgen -W 'infiniband madpmd_ib' -- "$cur")); return ;;
	--umad-mode)
		COMPREPLY=($(compgen -W '0600 0660 0666' -- "$cur")); return ;;
	--wire|--nodes|--switch-clients|--client-ports|--idle-polls|--idle-sleep-us|--duration|--lossy|--replay)
		return ;;
	esac
	case $cur in
	-*) COMPREPLY=($(compgen -W "$_madpmd_opts" -- "$cur")) ;;
	esac
}
complete -F _madpmd madpmd

# the node names of the fabric in the run directory the line names
_madpmd_run_nodes()
{
	local dir=${MADPMD_RUN_DIR:-/run/madpmd} i name rest

	for ((i = 1; i < COMP_CWORD; i++)); do
		[ "${COMP_WORDS[i]}" = --run-dir ] && dir=${COMP_WORDS[i+1]:-$dir}
	done
	[ -r "$dir/nodes" ] || return
	while read -r name rest; do
		[ -n "$rest" ] && printf '%s\n' "$name"
	done < "$dir/nodes"
}

_madpmd_run()
{
	local cur=${COMP_WORDS[COMP_CWORD]:-} prev= i=1

	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	# madpmd-run's own options end at the first word that is not one
	while [ "$i" -lt "$COMP_CWORD" ]; do
		case ${COMP_WORDS[i]} in
		--node|--device|--run-dir) i=$((i + 2)) ;;
		--) i=$((i + 1)); break ;;
		-*) i=$((i + 1)) ;;
		*) break ;;
		esac
	done
	if [ "$i" -lt "$COMP_CWORD" ]; then
		# within COMMAND's line: COMMAND's own completion
		if declare -F _command_offset >/dev/null; then
			_command_offset "$i"
		else
			_madpmd_files -f "$cur"
		fi
		return
	fi
	case $prev in
	--node)
		COMPREPLY=($(compgen -W "$(_madpmd_run_nodes)" -- "$cur")); return ;;
	--run-dir)
		_madpmd_files -d "$cur"; return ;;
	--device)
		COMPREPLY=($(compgen -W "madpmd0" -- "$cur")); return ;;
	esac
	case $cur in
	-*) COMPREPLY=($(compgen -W "$_madpmd_run_opts" -- "$cur")) ;;
	*) COMPREPLY=($(compgen -c -- "$cur")) ;;
	esac
}
complete -F _madpmd_run madpmd-run
