function work(n){let s=0;for(let i=0;i<n;i++){s+=Math.sqrt(i)*Math.sin(i);}return s;}
function main(){let t=0;const end=Date.now()+300;while(Date.now()<end){t+=work(100000);}return t;}
console.log(main()>0);
