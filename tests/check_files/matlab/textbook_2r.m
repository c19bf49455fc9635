1;  % Planar 2R in the textbook (Spong) form, written by hand: centre of mass Lc and inertia J of each link.
% From T = 1/2 sum(m v_c^2 + J w^2), U = sum(m g y_c); gravity along -y.  C is the Christoffel matrix.

function out = M(q, p)
  c2 = cos(q(2));
  m11 = p.J1 + p.J2 + p.m1*p.Lc1^2 + p.m2*(p.L1^2 + p.Lc2^2 + 2*p.L1*p.Lc2*c2);
  m12 = p.J2 + p.m2*(p.Lc2^2 + p.L1*p.Lc2*c2);
  m22 = p.J2 + p.m2*p.Lc2^2;
  out = [m11 m12; m12 m22];
end

function out = C(q, qd, p)
  h = -p.m2*p.L1*p.Lc2*sin(q(2));
  out = [h*qd(2), h*(qd(1) + qd(2));
         -h*qd(1), 0];
end

function out = G(q, p)
  g2 = p.m2*p.g*p.Lc2*cos(q(1) + q(2));
  g1 = (p.m1*p.Lc1 + p.m2*p.L1)*p.g*cos(q(1)) + g2;
  out = [g1; g2];
end
