function out = coriolis(q, qd, p)
  % C(q, qd)*qd as a vector
  k = p.m2*p.l1*p.l2*sin(q(2));
  out = [-k*(2*qd(1)*qd(2) + qd(2)^2); k*qd(1)^2];
end
