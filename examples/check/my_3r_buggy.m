1;  % my planar 3R (crossdyn preset planar3r) in MATLAB -- the worked example of docs/tutorial/first-check.md, transcribed
%   crossdyn check planar3r examples/check/my_3r_buggy.m
% Mistake 1: in M12 the cos(q3) term lost its factor 2.
% Mistake 2: in M11, link 3's share of the L1 term is written m3*L1 instead of m3*L1^2 --
%            invisible with planar3r's own parameters (L1 = 1 m), caught by the random ones.
% C is returned as the vector C(q, qd)*qd; G is on the left-hand side.

function out = M(q, p)
  m1 = p.m1; m2 = p.m2; m3 = p.m3;
  L1 = p.L1; L2 = p.L2;
  Lc1 = p.Lc1; Lc2 = p.Lc2; Lc3 = p.Lc3;
  c2 = cos(q(2)); c3 = cos(q(3)); c23 = cos(q(2) + q(3));
  m11 = p.J1 + p.J2 + p.J3 + m1*Lc1^2 + m2*(L1^2 + Lc2^2 + 2*L1*Lc2*c2) ...
        + m3*(L1 + L2^2 + Lc3^2 + 2*L1*L2*c2 + 2*L1*Lc3*c23 + 2*L2*Lc3*c3);   % L1 -> L1^2
  m12 = p.J2 + p.J3 + m2*(Lc2^2 + L1*Lc2*c2) ...
        + m3*(L2^2 + Lc3^2 + L1*L2*c2 + L1*Lc3*c23 + L2*Lc3*c3);               % needs 2*L2*Lc3*c3
  m13 = p.J3 + m3*(Lc3^2 + L1*Lc3*c23 + L2*Lc3*c3);
  m22 = p.J2 + p.J3 + m2*Lc2^2 + m3*(L2^2 + Lc3^2 + 2*L2*Lc3*c3);
  m23 = p.J3 + m3*(Lc3^2 + L2*Lc3*c3);
  m33 = p.J3 + m3*Lc3^2;
  out = [m11 m12 m13;
         m12 m22 m23;
         m13 m23 m33];
end

function out = C(q, qd, p)
  % C(q, qd)*qd: centrifugal and Coriolis torques
  a = (p.m2*p.Lc2 + p.m3*p.L2)*p.L1*sin(q(2));
  b = p.m3*p.Lc3*p.L2*sin(q(3));
  d = p.m3*p.Lc3*p.L1*sin(q(2) + q(3));
  w1 = qd(1); w2 = qd(2); w3 = qd(3);
  w12 = w1 + w2; w123 = w1 + w2 + w3;
  out = [-a*(w12^2 - w1^2) - b*(w123^2 - w12^2) - d*(w123^2 - w1^2);
          a*w1^2 - b*(w123^2 - w12^2) + d*w1^2;
          b*w12^2 + d*w1^2];
end

function out = G(q, p)
  g3 = p.m3*p.Lc3*p.g*cos(q(1) + q(2) + q(3));
  g2 = (p.m2*p.Lc2 + p.m3*p.L2)*p.g*cos(q(1) + q(2)) + g3;
  g1 = (p.m1*p.Lc1 + (p.m2 + p.m3)*p.L1)*p.g*cos(q(1)) + g2;
  out = [g1; g2; g3];
end
