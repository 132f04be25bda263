# SPDX-License-Identifier: BSD-3-Clause
# bash completion for madpmd, madpmd-run, madpmd-pktgen and madpmd-extcap.
# Installed under each name:
# bash-completion loads completions/<command> the first time <command> is
# completed. Plain bash (compgen): works without the bash-completion
# package, and uses its _command_offset for madpmd-run's COMMAND if loaded.

# madpmd's options after "--" (pmd/launcher/madpmd.c); EAL's come before
_madpmd_opts='--topology --run-dir --capture --interactive --link --wire --nodes --trunk --verbose
	--switch-clients --client-ports --idle-polls --idle-sleep-us --no-intr --duration --lossy --replay
	--exit-after-replay --umad-mode --ib-dissector --help --version'
# madpmd-run's options (lib/umad/madpmd-run.sh)
_madpmd_run_opts='--node --device --net --run-dir --print-addr --wait-active --help --version'
# madpmd-pktgen's (lib/tools/madpmd-pktgen.c) and madpmd-extcap's
# (dissector/extcap/madpmd-extcap.c)
_madpmd_pktgen_opts='--link --kind --dst-mac --count --help --version'
_madpmd_extcap_opts='--extcap-interfaces --extcap-version --extcap-interface
	--extcap-dlts --extcap-config --extcap-capture-filter --capture --fifo
	--extcap-control-in --extcap-control-out --extcap-reload-option --debug
	--debug-file --run-dir --kinds --help --version'

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
	--wire|--nodes|--trunk|--switch-clients|--client-ports|--idle-polls|--idle-sleep-us|--duration|--lossy|--replay)
		return ;;
	esac
	case $cur in
	-*) COMPREPLY=($(compgen -W "$_madpmd_opts" -- "$cur")) ;;
	esac
}
complete -F _madpmd madpmd

# the run directory the line names, else the default's rule
# (docs/launcher.md, "The run directory")
_madpmd_run_dir()
{
	local dir=${MADPMD_RUN_DIR:-} i

	for ((i = 1; i < COMP_CWORD; i++)); do
		[ "${COMP_WORDS[i]}" = --run-dir ] && dir=${COMP_WORDS[i+1]:-$dir}
	done
	if [ -z "$dir" ]; then
		dir=${XDG_RUNTIME_DIR:+$XDG_RUNTIME_DIR/madpmd}
		dir=${dir:-/tmp/madpmd-$(id -u)}
		[ -s "$dir/nodes" ] || dir=/run/madpmd
	fi
	printf '%s\n' "$dir"
}

# the node names of the fabric (with "ports": NODE-PORT, the extcap's
# interface names)
_madpmd_run_nodes()
{
	local dir name guid ports rest p

	dir=$(_madpmd_run_dir)
	[ -r "$dir/nodes" ] || return
	while read -r name guid ports rest; do
		[ -n "$ports" ] || continue
		if [ "${1:-}" = ports ]; then
			for ((p = 1; p <= ports; p++)); do
				printf '%s-%s\n' "$name" "$p"
			done
		else
			printf '%s\n' "$name"
		fi
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

_madpmd_pktgen()
{
	local cur=${COMP_WORDS[COMP_CWORD]:-} prev=

	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	case $prev in
	-o)
		_madpmd_files -f "$cur"; return ;;
	--link)
		COMPREPLY=($(compgen -W 'ib roce roce1 all' -- "$cur")); return ;;
	--kind)
		COMPREPLY=($(compgen -W 'demo perf-get' -- "$cur")); return ;;
	--dst-mac|--count)
		return ;;
	esac
	case $cur in
	-*) COMPREPLY=($(compgen -W "-o $_madpmd_pktgen_opts" -- "$cur")) ;;
	esac
}
complete -F _madpmd_pktgen madpmd-pktgen

_madpmd_extcap()
{
	local cur=${COMP_WORDS[COMP_CWORD]:-} prev=

	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	case $prev in
	--fifo|--debug-file|--extcap-control-in|--extcap-control-out)
		_madpmd_files -f "$cur"; return ;;
	--run-dir)
		_madpmd_files -d "$cur"; return ;;
	--extcap-interface)
		COMPREPLY=($(compgen -W "madpmd-all $(_madpmd_run_nodes ports |
			sed 's/^/madpmd-/')" -- "$cur")); return ;;
	--kinds)
		COMPREPLY=($(compgen -W 'wire umad port wc cm' -- "$cur")); return ;;
	--extcap-capture-filter|--extcap-reload-option)
		return ;;
	esac
	case $cur in
	-*) COMPREPLY=($(compgen -W "$_madpmd_extcap_opts" -- "$cur")) ;;
	esac
}
complete -F _madpmd_extcap madpmd-extcap
