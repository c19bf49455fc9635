1;  % Planar 3R with geared motors, written out by hand: centre of mass Lc and inertia J of each link, and the
% reflected rotor inertia (armature) p.Ia1, p.Ia2, p.Ia3 of each joint's motor; gravity along -y.
% The rotor of joint i spins with qd(i) (times its gear ratio): its kinetic energy 1/2 Ia_i qd_i^2 adds Ia_i
% to M_ii and nothing else (constant, so C and G are those of the arm without motors).
% M from T = 1/2 sum(m v_c^2 + J w^2); C from the Christoffel symbols of M (dM/dq by hand);
% G = dU/dq with U = sum(m g y_c).  Written MATLAB style: zeros(3), then entries assigned.

function out = M(q, p)
  c2 = cos(q(2)); c3 = cos(q(3)); c23 = cos(q(2) + q(3));
  m1 = p.m(1); m2 = p.m(2); m3 = p.m(3);
  L1 = p.L(1); L2 = p.L(2);
  Lc1 = p.Lc(1); Lc2 = p.Lc(2); Lc3 = p.Lc(3);
  out = zeros(3);
  out(1,1) = p.J1 + p.J2 + p.J3 + m1*Lc1^2 + m2*(L1^2 + Lc2^2 + 2*L1*Lc2*c2) ...
             + m3*(L1^2 + L2^2 + Lc3^2 + 2*L1*L2*c2 + 2*L1*Lc3*c23 + 2*L2*Lc3*c3);
  out(1,2) = p.J2 + p.J3 + m2*(Lc2^2 + L1*Lc2*c2) + m3*(L2^2 + Lc3^2 + L1*L2*c2 + L1*Lc3*c23 + 2*L2*Lc3*c3);
  out(1,3) = p.J3 + m3*(Lc3^2 + L1*Lc3*c23 + L2*Lc3*c3);
  out(2,2) = p.J2 + p.J3 + m2*Lc2^2 + m3*(L2^2 + Lc3^2 + 2*L2*Lc3*c3);
  out(2,3) = p.J3 + m3*(Lc3^2 + L2*Lc3*c3);
  out(3,3) = p.J3 + m3*Lc3^2;
  out(2,1) = out(1,2); out(3,1) = out(1,3); out(3,2) = out(2,3);
  out(1,1) = out(1,1) + p.Ia1;
  out(2,2) = out(2,2) + p.Ia2;
  out(3,3) = out(3,3) + p.Ia3;
end

function out = C(q, qd, p)
  s2 = sin(q(2)); s3 = sin(q(3)); s23 = sin(q(2) + q(3));
  a = p.m2*p.L1*p.Lc2 + p.m3*p.L1*p.L2;   % coefficient of cos(q2) in M12
  b = p.m3*p.L2*p.Lc3;                    % coefficient of cos(q3) in M23
  d = p.m3*p.L1*p.Lc3;                    % coefficient of cos(q2+q3) in M13
  h1 = [0 0 0; 0 0 0; 0 0 0];             % dM/dq1
  h2 = [-2*a*s2 - 2*d*s23, -a*s2 - d*s23, -d*s23;
        -a*s2 - d*s23, 0, 0;
        -d*s23, 0, 0];
  h3 = [-2*b*s3 - 2*d*s23, -2*b*s3 - d*s23, -b*s3 - d*s23;
        -2*b*s3 - d*s23, -2*b*s3, -b*s3;
        -b*s3 - d*s23, -b*s3, 0];
  dM = {h1, h2, h3};
  out = zeros(3);
  for i = 1:3
    for j = 1:3
      for k = 1:3
        out(i,j) = out(i,j) + 0.5*(dM{k}(i,j) + dM{j}(i,k) - dM{i}(j,k))*qd(k);
      end
    end
  end
end

function out = G(q, p)
  g3 = p.m3*p.Lc3*p.g*cos(q(1) + q(2) + q(3));
  g2 = (p.m2*p.Lc2 + p.m3*p.L2)*p.g*cos(q(1) + q(2)) + g3;
  g1 = (p.m1*p.Lc1 + (p.m2 + p.m3)*p.L1)*p.g*cos(q(1)) + g2;
  out = [g1; g2; g3];
end
