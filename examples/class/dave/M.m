function out = M(q, p)
  % planar 2R, textbook form
  c2 = cos(q(2));
  m11 = p.J1 + p.J2 + p.m1*p.Lc1^2 + p.m2*(p.L1^2 + p.Lc2^2 + 2*p.L1*p.Lc2*c2);
  m12 = p.J2 + p.m2*(p.Lc2^2 + p.L1*p.Lc2*c2);
  m22 = p.J2 + p.m2*p.Lc2^2;
  out = [m11 m12; m12 m22];
end
