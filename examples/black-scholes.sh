#!/bin/sh
# black-scholes.sh - price a European call option with Black-Scholes and get
# two Greeks from one reverse sweep: delta = dC/dS and vega = dC/dv.
#
#   C  = S*N(d1) - K*exp(-r*T)*N(d2),   N(z) = 0.5*(1 + erf(z/sqrt(2)))
#   d1 = (log(S/K) + (r + v^2/2)*T) / (v*sqrt(T)),   d2 = d1 - v*sqrt(T)
#
# S spot, K strike, T years to expiry, r risk-free rate, v volatility.
# The formula is one -e here, with d1 spelled out twice and N written with
# erf; a program can name d1 once (d1 = ...; see PROGRAMS in adcalc(1)),
# and normcdf(z) is N(z) (through erfc, accurate in the lower tail).
#
# Checked against: the closed-form Greeks computed in python3 (math.erf):
#   C = 10.450583572185565, delta = N(d1) = 0.6368306511756191,
#   vega = S*phi(d1)*sqrt(T) = 37.52403469169379, dC/dK = -exp(-rT)*N(d2)
#   = -0.5323248154537634, dC/dT = S*phi(d1)*v/(2*sqrt(T)) + r*K*exp(-rT)*N(d2)
#   = 6.414027546438197, rho = K*T*exp(-rT)*N(d2) = 53.232481545376345;
#   at S=150: C = 54.97014014, delta = 0.991280655, vega = 3.546135426.
# Printed to 10 significant digits so the output does not depend on the
# last bit of the C library's erf/exp/log.
adcalc=${ADCALC:-adcalc}

d1='(log(S/K) + (r + v^2/2)*T)/(v*sqrt(T))'
d2="($d1 - v*sqrt(T))"
call="S*0.5*(1 + erf($d1/sqrt(2))) - K*exp(-r*T)*0.5*(1 + erf($d2/sqrt(2)))"
point=S=100,K=100,T=1,r=0.05,v=0.2

echo "# at-the-money call, one year, 5% rate, 20% volatility: price, delta, vega"
"$adcalc" -e "$call" -at "$point" --wrt S,v --precision 10

echo "# all five sensitivities at once (d/dT is minus theta, d/dr is rho)"
"$adcalc" -e "$call" -at "$point" --grad --precision 10

echo "# a call deep in the money is almost the forward: delta near 1, vega small"
"$adcalc" -e "$call" -at S=150,K=100,T=1,r=0.05,v=0.2 --wrt S,v --precision 10
