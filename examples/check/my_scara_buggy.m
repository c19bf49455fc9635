% M, C, G of the SCARA (crossdyn preset scara, RRP) in MATLAB -- with a mistake: the prismatic joint's gravity
% term is missing (G3 should be -m3*g).  alpha1 = pi: joint 2 turns the other way round; lc_i = a_i + cx_i; q(3) = d3.
% Check it:  crossdyn check scara examples/check/my_scara_buggy.m
1;

function out = M(q, p)
  c2 = cos(q(2));
  lc1 = p.a1 + p.cx1; lc2 = p.a2 + p.cx2;
  m11 = p.Izz1 + p.Izz2 + p.Izz3 + p.m1*lc1^2 + p.m2*(p.a1^2 + lc2^2 + 2*p.a1*lc2*c2) ...
        + p.m3*(p.a1^2 + p.a2^2 + 2*p.a1*p.a2*c2);
  m12 = -(p.Izz2 + p.Izz3 + p.m2*(lc2^2 + p.a1*lc2*c2) + p.m3*(p.a2^2 + p.a1*p.a2*c2));
  m22 = p.Izz2 + p.Izz3 + p.m2*lc2^2 + p.m3*p.a2^2;
  out = [m11, m12, 0; m12, m22, 0; 0, 0, p.m3];
end

function out = C(q, qd, p)
  h = -p.a1*sin(q(2))*(p.m2*(p.a2 + p.cx2) + p.m3*p.a2);
  out = [h*qd(2), h*(qd(1) - qd(2)), 0; -h*qd(1), 0, 0; 0, 0, 0];
end

function out = G(q, p)
  out = [0; 0; 0];   % forgot the quill's weight
end
