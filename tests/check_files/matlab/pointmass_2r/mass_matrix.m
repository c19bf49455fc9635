function out = mass_matrix(q, p)
  % planar 2R with point masses at the link ends (only m and L appear); a function file
  m1 = p.m1; m2 = p.m2; l1 = p.l1; l2 = p.l2;
  c2 = cos(q(2));
  out = [(m1 + m2)*l1^2 + m2*l2^2 + 2*m2*l1*l2*c2, m2*l2^2 + m2*l1*l2*c2;
         m2*l2^2 + m2*l1*l2*c2, m2*l2^2];
end
