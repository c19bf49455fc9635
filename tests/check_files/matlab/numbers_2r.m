1;  % planar2r with its numbers written in (L = 1, 0.8 m; m = 1, 0.8 kg; uniform rods), functions without p
function out = M(q)
  c2 = cos(q(2));
  out = [1.304 + 0.64*c2, 0.17066666666666667 + 0.32*c2;
         0.17066666666666667 + 0.32*c2, 0.17066666666666667];
end
function out = C(q, qd)
  h = -0.32*sin(q(2));
  out = [h*qd(2), h*(qd(1) + qd(2)); -h*qd(1), 0];
end
function out = G(q)
  out = [12.753*cos(q(1)) + 3.1392*cos(q(1) + q(2)); 3.1392*cos(q(1) + q(2))];
end
