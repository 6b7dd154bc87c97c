# bench/funcs.sh - the benchmark functions F1..F5 of shared/peers as adcalc
# expressions (sourced by batch.sh and jit.sh): nvars F, vars_of F (the
# --vars list, in the peers' column order) and write_exprs DIR (DIR/Fk.expr).
nvars() { case $1 in F1 | F2) echo 2 ;; F3) echo 10 ;; F4) echo 5 ;; F5) echo 100 ;; esac; }
vars_of() {
    case $1 in
    F1 | F2) echo x,y ;;
    F4) echo S,K,T,r,v ;;
    *) awk -v n="$(nvars "$1")" 'BEGIN { for (i = 0; i < n; i++) printf "%sx%d", i ? "," : "", i; print "" }' ;;
    esac
}
write_exprs() {
    printf '%s\n' 'x*y + sin(x)' >"$1/F1.expr"
    printf '%s\n' '(1-x)^2 + 100*(y-x^2)^2' >"$1/F2.expr"
    awk 'BEGIN { for (i = 0; i < 9; i++) printf "exp(-x%d^2)*sin(x%d) + log(1+x%d^2) + ", i, i + 1, i; print "sqrt(1+x9^2)" }' >"$1/F3.expr"
    cat >"$1/F4.expr" <<'EXPR'
N(z) = 0.5*(1+erf(z/sqrt(2)))
d1 = (log(S/K)+(r+v^2/2)*T)/(v*sqrt(T))
d2 = d1 - v*sqrt(T)
S*N(d1) - K*exp(-r*T)*N(d2)
EXPR
    awk 'BEGIN { for (i = 0; i < 99; i++) printf "%s100*(x%d-x%d^2)^2 + (1-x%d)^2", i ? " + " : "", i + 1, i, i; print "" }' >"$1/F5.expr"
}
