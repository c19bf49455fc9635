1;  % planar 2R in the style of MATLAB's matlabFunction output (t-variables, in1(2,:), reshape), by hand
function M = mass_matrix(in1, p)
  q2 = in1(2,:);
  t2 = cos(q2);
  t3 = p.L1.*p.Lc2.*p.m2.*t2;
  t4 = p.Lc2.^2;
  t5 = p.m2.*t4;
  t6 = p.J2 + t3 + t5;
  M = reshape([p.J1 + p.J2 + p.m1.*p.Lc1.^2 + p.m2.*(p.L1.^2 + t4) + t3.*2.0, t6, t6, p.J2 + t5], [2, 2]);
end
function C = coriolis(in1, in2, p)
  qd1 = in2(1,:); qd2 = in2(2,:);
  t2 = sin(in1(2,:));
  t3 = p.L1.*p.Lc2.*p.m2.*t2;
  C = reshape([-t3.*qd2, t3.*qd1, -t3.*(qd1 + qd2), 0.0], [2, 2]);
end
function G = gravity(in1, p)
  t2 = cos(in1(1,:) + in1(2,:));
  G = [p.g.*(p.m1.*p.Lc1 + p.m2.*p.L1).*cos(in1(1,:)) + p.g.*p.m2.*p.Lc2.*t2; p.g.*p.m2.*p.Lc2.*t2];
end
