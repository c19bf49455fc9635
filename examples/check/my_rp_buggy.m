% M, C, G of the RP polar arm (crossdyn preset rp-polar) in MATLAB -- with a mistake: M11 lacks m2*d2^2.
% d2 = q(2), the extension of the prismatic joint.  p.m1, p.m2, p.cz1, p.Iyy1, p.Iyy2, p.g.
% Check it:  crossdyn check rp-polar examples/check/my_rp_buggy.m
1;

function out = M(q, p)
  d2 = q(2);
  m11 = p.Iyy1 + p.Iyy2 + p.m1*p.cz1^2;   % m2*d2^2 forgotten
  out = [m11, 0; 0, p.m2];
end

function out = C(q, qd, p)
  h = p.m2*q(2);
  out = [h*qd(2), h*qd(1); -h*qd(1), 0];
end

function out = G(q, p)
  d2 = q(2);
  out = [p.g*cos(q(1))*(p.m1*p.cz1 + p.m2*d2); p.m2*p.g*sin(q(1))];
end
