# Shared by the benchmark scripts (sourced): reads their options
#   -b QPOR      the binary (default: target/release/qpor)
#   -t SECONDS   the time limit of each run (default: the script's $limit)
#   -e VALUE     the script's own choice, left in $choice (default: the script's $choice)
# and sets $qpor, $limit, $choice and $consumed (how many arguments the options took);
# stops with the script's usage line on an unknown option.
bench_options() {
    local usage=$1
    shift
    local opt OPTIND=1
    qpor=target/release/qpor
    while getopts "b:t:e:" opt; do
        case $opt in
            b) qpor=$OPTARG ;;
            t) limit=$OPTARG ;;
            e) choice=$OPTARG ;;
            *) echo "usage: $0 $usage" >&2; exit 2 ;;
        esac
    done
    consumed=$((OPTIND - 1))
}

# Stops unless $qpor is built.
need_qpor() {
    [[ -x $qpor ]] || { echo "$qpor: not built (cargo build --release)" >&2; exit 2; }
}
