function out = gravity(q, p)
  c1 = cos(q(1)); c12 = cos(q(1) + q(2));
  out = [(p.m1 + p.m2)*p.g*p.l1*c1 + p.m2*p.g*p.l2*c12, p.m2*p.g*p.l2*c12];   % a row: accepted
end
