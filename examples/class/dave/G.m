function out = G(q, p)
  % gravity torques (on the right-hand side: M qdd + C qd = tau + G)
  g2 = p.m2*p.g*p.Lc2*cos(q(1) + q(2));
  out = -[(p.m1*p.Lc1 + p.m2*p.L1)*p.g*cos(q(1)) + g2; g2];
end
