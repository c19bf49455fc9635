function out = C(q, qd, p)
  % C(q, qd)*qd
  h = p.m2*p.L1*p.Lc2*sin(q(2));
  out = [-h*(2*qd(1)*qd(2) + qd(2)^2); h*qd(1)^2];
end
